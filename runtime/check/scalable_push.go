package check

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
)

// ScalablePush reports whether ksqlDB would run st as a scalable push
// query (under ksql.query.push.v2.enabled, reading from latest): a push
// query over one source with no GROUP BY, WINDOW, HAVING or PARTITION
// BY, whose source exactly one persistent query writes (writers, asked
// last: the engine takes its lock to count), that
// does not use ROWPARTITION or ROWOFFSET. ksqlDB serves it from the
// writing query's output instead of a topology of its own; sqlstream
// only names it so (see naming.Transient).
func ScalablePush(st *ast.Query, plan *planner.Plan, writers func() int) bool {
	if plan.Kind == planner.Pull || len(plan.Sources) != 1 || st.Emit != ast.EmitChanges ||
		st.Window != nil || len(st.GroupBy) > 0 || st.Having != nil || len(st.PartitionBy) > 0 {
		return false
	}
	return !usesRowPosition(st) && writers() == 1
}

// usesRowPosition reports whether the query reads ROWPARTITION or
// ROWOFFSET, which a scalable push query cannot give.
func usesRowPosition(st *ast.Query) bool {
	var exprs []ast.Expr
	if st.Where != nil {
		exprs = append(exprs, st.Where)
	}
	for _, it := range st.Items {
		if it.Expr != nil {
			exprs = append(exprs, it.Expr)
		}
	}
	for _, x := range exprs {
		for _, ref := range expr.ColumnRefs(x) {
			if ref.Name == planner.RowPartitionColumn || ref.Name == planner.RowOffsetColumn {
				return true
			}
		}
	}
	return false
}
