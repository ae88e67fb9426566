package physical

// valuesBorrower is implemented by the operators that may keep nothing of
// a row's Values slice once Process returns: they read it, or copy what
// they keep. An operator whose successor borrows may hand it the same
// slice, refilled, for every row (one allocation per task instead of one
// per row). Processor's contract alone does not allow that: an operator
// that keeps a copy of the Row struct keeps its Values, so an operator
// that does not implement this (a push query's queue, a store, a join
// side) is taken to keep them.
type valuesBorrower interface {
	borrowsValues() bool
}

// borrowsValues reports whether p keeps nothing of the Values of the
// rows it is given (false when p does not say).
func borrowsValues(p Processor) bool {
	b, ok := p.(valuesBorrower)
	return ok && b.borrowsValues()
}

// The operators of the stateless path and the group-by step say whether
// they borrow (checked at compile time).
var (
	_ valuesBorrower = (*sinkOp)(nil)
	_ valuesBorrower = (*countedOp)(nil)
	_ valuesBorrower = (*filterOp)(nil)
	_ valuesBorrower = (*projectOp)(nil)
	_ valuesBorrower = (*flatMapOp)(nil)
	_ valuesBorrower = (*groupByOp)(nil)
)

// borrowsValues: the sink encodes the row's values into bytes of its own
// and keeps nothing of the row.
func (op *sinkOp) borrowsValues() bool { return true }

// borrowsValues: a counter passes the row on, so it borrows when the
// node after it does.
func (c *countedOp) borrowsValues() bool { return borrowsValues(c.next) }

// borrowsValues: a filter passes the row itself on (a table's failing
// row as a delete), so it borrows when its successor does.
func (op *filterOp) borrowsValues() bool { return borrowsValues(op.next) }

// borrowsValues: a projection reads its input's values into a row of its
// own; the values it copies are immutable, the slice is not kept.
func (op *projectOp) borrowsValues() bool { return true }

// borrowsValues: a flat map copies its input's values into rows of its
// own.
func (op *flatMapOp) borrowsValues() bool { return true }

// rowValues is an operator's source of output Values slices: a fresh
// slice per row, unless the successor borrows, when one slice is cleared
// and reused (the successor is known when the operator is made: the
// chain is built from the sink up).
type rowValues struct {
	reuse bool
	buf   []any
}

func newRowValues(next Processor) rowValues { return rowValues{reuse: borrowsValues(next)} }

// get returns a slice of n nils, with room for extra more values.
func (v *rowValues) get(n, extra int) []any {
	if !v.reuse {
		return make([]any, n, n+extra)
	}
	if cap(v.buf) < n+extra {
		v.buf = make([]any, n, n+extra)
		return v.buf
	}
	v.buf = v.buf[:n]
	clear(v.buf)
	return v.buf
}

// borrowsValues: the group-by step evaluates its keys and arguments into
// a row of its own; a table's row goes into its store encoded, and the
// retraction of the old one is decoded into a fresh slice.
func (op *groupByOp) borrowsValues() bool { return true }
