package physical

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// testLoan is a buffer a lendingEmitter lent.
type testLoan struct{ buf []byte }

func (l *testLoan) LentBuf() []byte { return l.buf[:0] }

// lendingEmitter lends buffers as the Kafka runner's outRecords does
// (BufferLender): from a free list, each back on it only once the
// record it carried was "called back", hold records after its Emit. It
// checks what the sink must keep to: a loan emitted is one it lent and
// the sink holds, and a held record's bytes do not change while held.
type lendingEmitter struct {
	hold     int
	free     []*testLoan
	lent     map[*testLoan]bool // lent and not yet emitted
	held     []heldLoan
	lends    int
	inLoan   int // records whose key and value were all in their loan's buffer
	copied   int // records emitted without a loan, or not all in it
	records  []OutRecord
	problems []string
	quiet    bool // keep no copies of the records (for counting allocations)
}

type heldLoan struct {
	loan       *testLoan
	key, value []byte // what the record was when emitted
	rk, rv     []byte // the record's own slices
}

func newLendingEmitter(hold int) *lendingEmitter {
	return &lendingEmitter{hold: hold, lent: map[*testLoan]bool{}}
}

func (e *lendingEmitter) Lend(n int) Loan {
	e.lends++
	var l *testLoan
	if k := len(e.free) - 1; k >= 0 {
		l, e.free = e.free[k], e.free[:k]
	} else {
		l = &testLoan{}
	}
	if cap(l.buf) < n {
		l.buf = make([]byte, 0, n)
	}
	e.lent[l] = true
	return l
}

// in reports whether b is in l's buffer (empty b: trivially).
func (l *testLoan) in(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(l.buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p >= start && p+uintptr(len(b)) <= start+uintptr(cap(l.buf))
}

func (e *lendingEmitter) Emit(r *OutRecord) {
	var c OutRecord
	if !e.quiet {
		c = *r
		c.Key, c.Value = clone(r.Key), clone(r.Value)
		c.Loan = nil
		e.records = append(e.records, c)
	}
	l, _ := r.Loan.(*testLoan)
	if r.Loan != nil && (l == nil || !e.lent[l]) {
		e.problems = append(e.problems, fmt.Sprintf("record %d came with a loan the sink does not hold", len(e.records)-1))
	}
	if l == nil || !l.in(r.Key) || !l.in(r.Value) || !l.in(r.PartitionKey) {
		e.copied++
		if l != nil {
			delete(e.lent, l)
			e.free = append(e.free, l) // copied: nothing holds it
		}
	} else {
		e.inLoan++
		delete(e.lent, l)
		e.held = append(e.held, heldLoan{loan: l, key: c.Key, value: c.Value, rk: r.Key, rv: r.Value})
	}
	if !e.quiet {
		e.check()
	}
	for len(e.held) > e.hold {
		e.free = append(e.free, e.held[0].loan)
		n := copy(e.held, e.held[1:])
		e.held = e.held[:n]
	}
}

// check reports a held record whose bytes changed since its Emit.
func (e *lendingEmitter) check() {
	for _, h := range e.held {
		if !bytes.Equal(h.rk, h.key) || !bytes.Equal(h.rv, h.value) {
			e.problems = append(e.problems, fmt.Sprintf("a held record changed from %q %q to %q %q", h.key, h.value, h.rk, h.rv))
		}
	}
}

// TestSinkEncodesIntoTheEmittersLoan: before an emitter that lends the
// buffer of the record it will produce (BufferLender, the Kafka
// runner's), the sink encodes a keyed, keyless, windowed and session
// record's key and value into the loan and emits it with the record, so
// the emitter copies nothing once the sink knows its records' sizes; the
// records are byte for byte the ones a copying emitter gets (a null key
// stays null, a delete a null value, an empty key empty, a record with
// headers is copied with them); no held record's bytes change while it
// is held (the sink never writes into a loan it emitted), and a record
// costs no allocation.
func TestSinkEncodesIntoTheEmittersLoan(t *testing.T) {
	cols := []types.Column{{Name: "PAGE", Type: types.StringType, NS: types.ValueNS}, {Name: "MS", Type: types.BigintType, NS: types.ValueNS}}
	key := types.Column{Name: "USER_ID", Type: types.StringType, NS: types.KeyNS}
	for _, c := range []struct {
		name string
		keys []types.Column
		win  *planner.WindowInfo
	}{
		{"keyed", []types.Column{key}, nil},
		{"keyless", nil, nil},
		{"windowed", []types.Column{key}, &planner.WindowInfo{Kind: ast.Tumbling}},
		{"session", []types.Column{key}, &planner.WindowInfo{Kind: ast.Session}},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
				Schema: &types.Schema{Columns: append(append([]types.Column{}, c.keys...), cols...)}, Window: c.win}
			row := func(k any, page string) *types.Row {
				r := &types.Row{Values: []any{page, int64(1700000000000)}}
				if c.keys != nil {
					r.Values = append([]any{k}, r.Values...)
				}
				if c.win != nil {
					r.Window = &types.Window{Start: 60000, End: 120000}
				}
				return r
			}
			var rows []*types.Row
			var headers [][]Header
			pages := []string{"/a", "/product/123", "/a/much/longer/page/than/the/ones/before/it/to/outgrow/the/loan/of/the/last/record/by/far/and/more/than/a/quarter/of/it/too/still/longer", "/b", ""}
			for i, p := range pages {
				rows, headers = append(rows, row(fmt.Sprint("user_", i), p)), append(headers, nil)
			}
			rows, headers = append(rows, row("user_h", "/with/headers")), append(headers, []Header{{Key: "trace", Value: []byte("t1")}})
			if c.keys != nil {
				del := row("user_9", "")
				del.Tombstone = true
				rows = append(rows, row(nil, "/null-key"), row("", "/empty-key"), del, row("user_10", "/after"))
				headers = append(headers, nil, nil, nil, nil)
			}
			copier, lender := &copyingEmitter{}, newLendingEmitter(3)
			run := func(emit Emitter) {
				env := &TaskEnv{Emit: emit}
				op, err := newSinkOp(env, target, nil)
				if err != nil {
					t.Fatal(err)
				}
				op.innerPlacement = true
				for i, r := range rows {
					env.current = nil
					if headers[i] != nil {
						env.current = &InRecord{Headers: headers[i]}
					}
					if err := op.Process(r); err != nil {
						t.Fatal(err)
					}
				}
			}
			run(copier)
			run(lender)
			if len(lender.records) != len(rows) {
				t.Fatalf("%d records, want %d", len(lender.records), len(rows))
			}
			for i, got := range lender.records {
				k, v := copier.record(i)
				if !bytes.Equal(got.Key, k) || (got.Key == nil) != (k == nil) || !bytes.Equal(got.Value, v) || (got.Value == nil) != (v == nil) {
					t.Errorf("record %d is %q (null %v) %q (null %v), the copier's %q (null %v) %q (null %v)", i,
						got.Key, got.Key == nil, got.Value, got.Value == nil, k, k == nil, v, v == nil)
				}
				if (len(got.Headers) > 0) != (headers[i] != nil) {
					t.Errorf("record %d has headers %+v, want %+v", i, got.Headers, headers[i])
				}
			}
			for _, p := range lender.problems {
				t.Error(p)
			}
			if lender.inLoan < len(rows)-4 {
				t.Errorf("%d of %d records were in their loan, want all but the first, the one that outgrew it, the one with headers and a delete", lender.inLoan, len(rows))
			}
			op, err := newSinkOp(&TaskEnv{Emit: lender}, target, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := row("user_1", "/product/123")
			if err := op.Process(r); err != nil {
				t.Fatal(err)
			}
			before := lender.inLoan
			lender.quiet = true
			allocs := testing.AllocsPerRun(100, func() {
				if err := op.Process(r); err != nil {
					t.Fatal(err)
				}
			})
			if allocs > 0 {
				t.Errorf("a record costs the sink %.0f allocations, want 0", allocs)
			}
			if lender.inLoan-before != 101 {
				t.Errorf("%d of 101 records were in their loan", lender.inLoan-before)
			}
		})
	}
}

// TestSinkKeepsALoanItDidNotEmit: a row the sink does not write (its
// TIMESTAMP column is null: logged and skipped, as a retried row emits
// nothing either) keeps the loan it borrowed for the next row, which
// comes with that loan without a second Lend; the row after that borrows
// a new one, the first being the emitter's.
func TestSinkKeepsALoanItDidNotEmit(t *testing.T) {
	target := &planner.Source{Topic: "out", KeyFormat: format.Spec{Name: format.Kafka}, ValueFormat: format.Spec{Name: format.JSON},
		TimestampColumn: "MS", Schema: &types.Schema{Columns: []types.Column{
			{Name: "PAGE", Type: types.StringType, NS: types.ValueNS}, {Name: "MS", Type: types.BigintType, NS: types.ValueNS}}}}
	lender := newLendingEmitter(10)
	op, err := newSinkOp(&TaskEnv{Emit: lender}, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	write := &types.Row{Values: []any{"/a", int64(1700000000000)}}
	skip := &types.Row{Values: []any{"/skipped", nil}}
	for _, r := range []*types.Row{write, skip} {
		if err := op.Process(r); err != nil {
			t.Fatal(err)
		}
	}
	if lender.lends != 2 || len(lender.records) != 1 || op.loan == nil {
		t.Fatalf("%d lends, %d records, loan %v: want 2, 1 and the skipped row's loan kept", lender.lends, len(lender.records), op.loan)
	}
	kept := op.loan
	if err := op.Process(write); err != nil {
		t.Fatal(err)
	}
	if lender.lends != 2 || len(lender.held) == 0 || lender.held[len(lender.held)-1].loan != kept {
		t.Fatalf("%d lends, the record's loan %p: want 2 and the kept one %p", lender.lends, lender.held[len(lender.held)-1].loan, kept)
	}
	if err := op.Process(write); err != nil {
		t.Fatal(err)
	}
	if lender.lends != 3 || lender.held[len(lender.held)-1].loan == kept {
		t.Errorf("%d lends: want a third, the kept loan being the emitter's", lender.lends)
	}
	for _, p := range lender.problems {
		t.Error(p)
	}
}
