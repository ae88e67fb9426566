package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// projectOp computes the output columns (mapValues: the key is unchanged).
// Evaluation errors set the column to NULL and are logged.
type projectOp struct {
	env   *TaskEnv
	n     *planner.Project
	cols  []int     // output schema index of each projection
	evals []rowEval // per task: function errors go to its log
	next  Processor
	out   types.Row
	vals  rowValues // the output rows' Values
	// memo holds the row's shared subexpressions (nil: none); the
	// projection resets it per row unless the filter before it does
	// (fed), having evaluated the same row through it.
	memo *expr.Memo
	fed  bool
}

func newProjectOp(env *TaskEnv, n *planner.Project, sh *sharedExprs, fed bool, next Processor) *projectOp {
	op := &projectOp{env: env, n: n, next: next, evals: make([]rowEval, len(n.Columns)), vals: newRowValues(next)}
	op.memo, op.fed = sh.memo(env), fed
	s := n.Schema()
	for i, c := range n.Columns {
		op.cols = append(op.cols, s.Find(c.Name))
		if op.memo == nil {
			op.evals[i] = c.Eval.WithErrorLog(env.functionErrors(c.Name))
			continue
		}
		op.evals[i] = sh.cols[i].WithErrorLog(env.functionErrors(c.Name)).Bind(op.memo)
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
	if op.memo != nil && !op.fed {
		op.memo.Reset()
	}
	out := &op.out
	*out = types.Row{Values: op.vals.get(len(op.cols), 0), Time: row.Time, Partition: row.Partition, Offset: row.Offset,
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
