package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// filterOp forwards rows for which the predicate is true. On a table a
// row that fails the predicate becomes a delete of its key (KTable
// filter semantics); an evaluation error counts as false and is logged.
type filterOp struct {
	env   *TaskEnv
	n     *planner.Filter
	table bool
	// dropFailing drops a table row that fails the condition instead of
	// deleting it downstream (push queries on a source table).
	dropFailing bool
	next        Processor
}

func (op *filterOp) Process(row *types.Row) error {
	if row.Tombstone {
		if !op.table {
			return nil
		}
		return op.next.Process(row)
	}
	v, err := op.n.Pred.Eval(row)
	if err != nil {
		op.env.log(ExpressionError, "value", fmt.Sprintf("Error evaluating WHERE %s: %v", ast.FormatExpr(op.n.Cond), err), nil)
	}
	if b, _ := v.(bool); b {
		return op.next.Process(row)
	}
	if op.table && !op.dropFailing && (!row.HasOld || op.passes(row.Old)) {
		row.Tombstone = true
		return op.next.Process(row)
	}
	return nil
}

// passes reports whether a table row's previous value passed the filter:
// only then does failing it now delete the row downstream.
func (op *filterOp) passes(old []any) bool {
	if old == nil {
		return false
	}
	v, err := op.n.Pred.Eval(&types.Row{Values: old})
	b, _ := v.(bool)
	return err == nil && b
}

// projectOp computes the output columns (mapValues: the key is unchanged).
// Evaluation errors set the column to NULL and are logged.
type projectOp struct {
	env   *TaskEnv
	n     *planner.Project
	cols  []int            // output schema index of each projection
	evals []*expr.Compiled // per task: function errors go to its log
	next  Processor
	out   types.Row
}

func newProjectOp(env *TaskEnv, n *planner.Project, next Processor) *projectOp {
	op := &projectOp{env: env, n: n, next: next, evals: make([]*expr.Compiled, len(n.Columns))}
	s := n.Schema()
	for i, c := range n.Columns {
		op.cols = append(op.cols, s.Find(c.Name))
		op.evals[i] = c.Eval.WithErrorLog(env.functionErrors(c.Name))
	}
	return op
}

// functionErrors returns the log for errors of function calls (which
// evaluate to NULL, as in ksqlDB) in the expression computing what.
func (e *TaskEnv) functionErrors(what string) func(error) {
	return func(err error) {
		e.log(ExpressionError, "value", fmt.Sprintf("Error computing %s: %v", what, err), nil)
	}
}

func (op *projectOp) Process(row *types.Row) error {
	out := &op.out
	*out = types.Row{Values: make([]any, len(op.cols)), Time: row.Time, Partition: row.Partition, Offset: row.Offset,
		Window: row.Window, Tombstone: row.Tombstone, NullKey: row.NullKey}
	for i, c := range op.n.Columns {
		if row.Tombstone && !c.Key && !c.WindowBound {
			continue
		}
		v, err := op.evals[i].Eval(row)
		if err != nil {
			op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing expression %s for column %s with index %d: %v", ast.FormatExpr(c.Expr), c.Name, i, err), nil)
			v = nil
		}
		out.Values[op.cols[i]] = v
	}
	return op.next.Process(out)
}

// sinkOp serializes rows and emits them to the target topic with the row's
// ROWTIME as the record timestamp. A table delete is a null value.
type sinkOp struct {
	env      *TaskEnv
	target   *planner.Source
	keyCodec format.Codec
	valCodec format.Codec
	nkeys    int
	valIdx   []int
	vals     []any     // the value columns of the row being written
	rec      OutRecord // the record handed to the emitter (which keeps its slices, not it)
	tsIdx    int       // the sink's TIMESTAMP column, or -1
	parseTS  TimestampParser
}

func newSinkOp(env *TaskEnv, target *planner.Source, parseTS TimestampParser) (*sinkOp, error) {
	op := &sinkOp{env: env, target: target, nkeys: target.Schema.NumKeys(), tsIdx: -1, parseTS: parseTS}
	if target.TimestampColumn != "" {
		op.tsIdx = target.Schema.Find(target.TimestampColumn)
	}
	var vals []types.Column
	for i, c := range target.Schema.Columns {
		if c.NS == types.ValueNS {
			vals = append(vals, c)
			op.valIdx = append(op.valIdx, i)
		}
	}
	var err error
	if op.keyCodec, err = format.NewKeyCodec(target.KeyFormat, target.Schema.Keys()); err != nil {
		return nil, err
	}
	if op.valCodec, err = format.NewValueCodec(target.ValueFormat, vals); err != nil {
		return nil, err
	}
	return op, nil
}

func (op *sinkOp) Process(row *types.Row) error {
	key, ok := op.key(row)
	if !ok {
		return nil
	}
	ts, ok := op.timestamp(row)
	if !ok {
		return nil
	}
	rec := &op.rec
	*rec = OutRecord{Topic: op.target.Topic, Partition: -1, Key: key, Timestamp: ts}
	if cur := op.env.current; cur != nil {
		rec.Headers = userHeaders(cur.Headers) // headers travel with the record, as in Kafka Streams
	}
	if !row.Tombstone {
		vals := op.vals[:0]
		for _, idx := range op.valIdx {
			vals = append(vals, row.Values[idx])
		}
		op.vals = vals
		b, err := op.valCodec.Encode(nil, vals)
		if err != nil {
			op.env.log(SerializationError, "value", err.Error(), nil)
			return nil
		}
		rec.Value = b
	}
	op.env.Emit.Emit(rec)
	return nil
}

func (op *sinkOp) key(row *types.Row) ([]byte, bool) {
	if op.nkeys == 0 {
		return nil, true
	}
	if row.NullKey || (op.nkeys == 1 && row.Values[0] == nil) {
		return op.window(nil, row), true
	}
	var b []byte
	if op.windowed(row) {
		b = make([]byte, 0, 32) // room for the window after the key
	}
	b, err := op.keyCodec.Encode(b, row.Values[:op.nkeys])
	if err != nil {
		op.env.log(SerializationError, "key", err.Error(), nil)
		return nil, false
	}
	return op.window(b, row), true
}

func (op *sinkOp) windowed(row *types.Row) bool {
	return row.Window != nil && op.target.Window != nil
}

// window appends the window to a key the sink owns.
func (op *sinkOp) window(b []byte, row *types.Row) []byte {
	if !op.windowed(row) {
		return b
	}
	return format.AppendWindow(b, *row.Window, op.target.Window.Kind == ast.Session)
}

// collectOp hands rows of a transient query to the RowSink.
type collectOp struct {
	env  *TaskEnv
	stop bool
	// stream is set when the rows are a stream's: a null row (a record
	// with a null value) is no event, and ksqlDB's transient queries skip
	// it, while a table's delete reaches the client.
	stream bool
}

// errStopped tells the task that the transient query's consumer wants no
// more rows.
var errStopped = fmt.Errorf("query stopped")

func (op *collectOp) Process(row *types.Row) error {
	if op.stop {
		return errStopped
	}
	if op.stream && row.Tombstone {
		return nil
	}
	cp := *row
	cp.Values = append([]any(nil), row.Values...)
	if !op.env.Rows.Row(&cp) {
		op.stop = true
		return errStopped
	}
	return nil
}

// IsStopped reports whether err means a transient query was stopped by its
// consumer (not a failure).
func IsStopped(err error) bool { return err == errStopped }

// timestamp is the output record's timestamp: the row's ROWTIME, or the
// sink's TIMESTAMP column when it declares one (WITH (TIMESTAMP=…)). A
// row whose TIMESTAMP column is null, negative or unparsable is logged
// and not written.
func (op *sinkOp) timestamp(row *types.Row) (int64, bool) {
	if op.tsIdx < 0 || row.Tombstone {
		return row.Time, true
	}
	var ts int64
	var err error
	switch v := row.Values[op.tsIdx].(type) {
	case int64:
		ts = v
	case types.Timestamp:
		ts = int64(v)
	case string:
		if op.parseTS == nil {
			err = fmt.Errorf("no timestamp parser")
		} else {
			ts, err = op.parseTS(v, op.target.TimestampFormat)
		}
	default:
		err = fmt.Errorf("timestamp column %s is %v", op.target.TimestampColumn, v)
	}
	if err == nil && ts < 0 {
		err = fmt.Errorf("negative timestamp %d in column %s", ts, op.target.TimestampColumn)
	}
	if err != nil {
		op.env.log(SerializationError, "value", "Could not extract the output timestamp: "+err.Error(), nil)
		return 0, false
	}
	return ts, true
}
