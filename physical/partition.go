package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

// partitionByOp re-keys rows (Kafka Streams' selectKey): the new key
// columns are the PARTITION BY expressions, followed by the input's value
// columns and old key columns as the planner laid them out. A null row
// keeps its place with a null-valued key computed from its key columns.
// An expression that fails gives a NULL key and is logged.
type partitionByOp struct {
	env  *TaskEnv
	n    *planner.PartitionBy
	next Processor
	out  types.Row
	src  []int // input index of each non-key output column
}

func (op *partitionByOp) Process(row *types.Row) error {
	if op.src == nil {
		op.src = sourceIndexes(op.n)
	}
	out := &op.out
	*out = types.Row{Values: make([]any, len(op.n.Schema().Columns)), Time: row.Time, Partition: row.Partition,
		Offset: row.Offset, Window: row.Window, Tombstone: row.Tombstone}
	k := 0
	for i, ev := range op.n.Evals {
		if ev == nil {
			continue
		}
		if row.Tombstone && !op.n.KeyOnly[i] {
			k++ // a null row has no value to compute this key from
			continue
		}
		v, err := ev.Eval(row)
		if err != nil {
			op.env.log(ExpressionError, "key", fmt.Sprintf("Error computing PARTITION BY %s: %v", ast.FormatExpr(op.n.Exprs[i]), err), nil)
			v = nil
		}
		out.Values[k] = v
		k++
	}
	for j, idx := range op.src {
		out.Values[k+j] = row.Values[idx]
	}
	return op.next.Process(out)
}

// sourceIndexes maps the non-key output columns to input columns by name.
func sourceIndexes(n *planner.PartitionBy) []int {
	in := n.Input.Schema()
	var out []int
	for _, c := range n.Schema().Columns {
		if c.NS != types.KeyNS {
			out = append(out, in.Find(c.Name))
		}
	}
	return out
}
