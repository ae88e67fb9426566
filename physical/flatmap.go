package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// flatMapOp applies the table functions of a FlatMap (Kafka Streams'
// flatMapValues: the key is unchanged): row i of the output carries the
// i-th value of every call, NULL for a call whose list is shorter, and
// there are as many rows as the longest list has values. A stream's
// null row is no event and yields nothing. A call that fails is logged
// and counts as an empty list.
type flatMapOp struct {
	env  *TaskEnv
	n    *planner.FlatMap
	next Processor
	outs [][]any // per call, the values for the row being processed
	out  types.Row
	vals rowValues // the output rows' Values
}

func newFlatMapOp(env *TaskEnv, n *planner.FlatMap, next Processor) *flatMapOp {
	return &flatMapOp{env: env, n: n, next: next, outs: make([][]any, len(n.Calls)), vals: newRowValues(next)}
}

func (op *flatMapOp) Process(row *types.Row) error {
	if row.Tombstone {
		return nil
	}
	longest := 0
	for i, c := range op.n.Calls {
		vals, err := c.Fn.Eval(row)
		if err != nil {
			op.env.log(ExpressionError, "value", fmt.Sprintf("Error computing table function %s: %v", ast.FormatExpr(c.Call), err), nil)
			vals = nil
		}
		op.outs[i] = vals
		longest = max(longest, len(vals))
	}
	width := len(row.Values)
	for j := 0; j < longest; j++ {
		out := &op.out
		*out = *row
		out.Values = op.vals.get(width, len(op.outs))
		copy(out.Values, row.Values)
		for _, vals := range op.outs {
			var v any
			if j < len(vals) {
				v = vals[j]
			}
			out.Values = append(out.Values, v)
		}
		if err := op.next.Process(out); err != nil {
			return err
		}
	}
	return nil
}
