package runtime

import (
	crand "crypto/rand"
	"fmt"
	"math/rand/v2"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/check"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
)

// transientID names a SELECT: SCALABLE_PUSH_QUERY_<uuid> for a push query
// ksqlDB would run as a scalable push query, transient_<source>_<n>
// otherwise.
//
// A scalable push query (ksql.query.push.v2.enabled) is a push query over
// one source with no GROUP BY, WINDOW, HAVING or PARTITION BY, reading
// from latest (auto.offset.reset), whose source exactly one persistent
// query writes, that does not use ROWPARTITION or ROWOFFSET: ksqlDB
// serves it from the writing query's output instead of a topology of its
// own. Deviation: sqlstream runs it as the transient query it runs
// otherwise, reading the source's topic from latest; the rows are the
// same (those the writing query produces once the query has started),
// the id says which kind ksqlDB would have made.
func (e *Engine) transientID(st *ast.Query, plan *planner.Plan, s *session) string {
	if e.scalablePush(st, plan, s) {
		return "SCALABLE_PUSH_QUERY_" + randomUUID()
	}
	return fmt.Sprintf("transient_%s_%d", plan.Sources[0].Name, rand.Int64N(1<<62))
}

func (e *Engine) scalablePush(st *ast.Query, plan *planner.Plan, s *session) bool {
	p := props.NewParser(e.table, s.props)
	if !p.Bool(props.PushV2) || p.Str(props.OffsetReset) != "latest" {
		return false
	}
	if plan.Kind == planner.Pull || len(plan.Sources) != 1 || st.Emit != ast.EmitChanges ||
		st.Window != nil || len(st.GroupBy) > 0 || st.Having != nil || len(st.PartitionBy) > 0 {
		return false
	}
	return !usesRowPosition(st) && e.countWriters(plan.Sources[0].Name) == 1
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

// countWriters counts the persistent queries writing source.
func (e *Engine) countWriters(source string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(check.Writers(e.checkViews(), source, ""))
}

// randomUUID is a version 4 UUID, as ksqlDB's scalable push query ids end.
func randomUUID() string {
	var b [16]byte
	_, _ = crand.Read(b[:]) // never fails (crypto/rand panics instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
