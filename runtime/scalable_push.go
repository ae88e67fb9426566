package runtime

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/check"
	"github.com/sqlstream/sqlstream/runtime/naming"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// transientID names a SELECT (naming.Transient): SCALABLE_PUSH_QUERY_…
// for a push query ksqlDB would run as a scalable push query
// (ksql.query.push.v2.enabled, reading from latest, check.ScalablePush),
// transient_<source>_<n> otherwise.
func (e *Engine) transientID(st *ast.Query, plan *planner.Plan, s *session) string {
	writers := func() int { return e.countWriters(plan.Sources[0].Name) }
	scalable := s.cfg.PushV2 && !s.cfg.FromEarliest && check.ScalablePush(st, plan, writers)
	return naming.Transient(plan.Sources[0].Name, scalable)
}

// countWriters counts the persistent queries writing source.
func (e *Engine) countWriters(source string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(check.Writers(e.checkViews(), source, ""))
}
