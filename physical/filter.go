package physical

import (
	"fmt"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// filterOp forwards rows for which the predicate is true. On a table a
// row that fails the predicate becomes a delete of its key, unless its
// known old value failed too, and a delete passes only when its known old
// value passed (KTable filter semantics with old values: nothing is
// deleted downstream that was never there); an evaluation error counts
// as false and is logged.
type filterOp struct {
	env   *TaskEnv
	n     *planner.Filter
	table bool
	// dropFailing drops a table row that fails the condition instead of
	// deleting it downstream (push queries on a source table).
	dropFailing bool
	next        Processor
	// pred is the condition, through memo when it shares subexpressions
	// (with the projection after it: memo is reset here, per row).
	pred rowEval
	memo *expr.Memo
}

func newFilterOp(env *TaskEnv, n *planner.Filter, sh *sharedExprs, table, dropFailing bool, next Processor) *filterOp {
	op := &filterOp{env: env, n: n, table: table, dropFailing: dropFailing, next: next, pred: n.Pred}
	if op.memo = sh.memo(env); op.memo != nil {
		op.pred = sh.pred.Bind(op.memo)
	}
	return op
}

func (op *filterOp) Process(row *types.Row) error {
	if op.memo != nil {
		op.memo.Reset()
	}
	if row.Tombstone {
		if !op.table || (row.HasOld && !op.passes(row.Old)) {
			return nil // nothing downstream to delete
		}
		return op.next.Process(row)
	}
	v, err := op.pred.Eval(row)
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
