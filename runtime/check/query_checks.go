package check

import (
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Capacity refuses a new persistent query when active queries run and
// ksql.query.persistent.active.limit is limit, with ksqlDB's message.
// The engine does not check a replayed command: its query was accepted
// before.
func Capacity(active, limit int, pos ast.Pos) error {
	if active < limit {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, pos, "Not executing statement(s) as it would cause the number of active, persistent queries "+
		"to exceed the configured limit. Use the TERMINATE command to terminate existing queries, or increase the '%s' setting "+
		"via the 'ksql-server.properties' file. Current persistent query count: %d. Configured limit: %d.",
		props.ActiveQueryLimit, active, limit)
}

// NotOwnSink refuses a query that reads its own sink.
func NotOwnSink(plan *planner.Plan, pos ast.Pos) error {
	for _, src := range plan.Sources {
		if plan.Sink != nil && src.Name == plan.Sink.Name {
			return sqlerr.New(sqlerr.Semantic, pos, "Cannot insert into %s: it is also a source of the query", src.Name)
		}
	}
	return nil
}

// KeepState compares the state of a running query's topology with an
// upgrade's (physical.CompareState): an upgrade whose stores cannot be
// kept is refused, with ksqlDB's message when ksqlDB refuses it too
// (report.StateRefusal) and the reason; one they can is allowed even
// where ksqlDB refuses it (adding an aggregate keeps every group's other
// accumulators), and the report says what is kept, added and dropped.
func KeepState(old, next *physical.Topology, report *planner.UpgradeReport, pos ast.Pos) error {
	diff, err := physical.CompareState(old, next)
	switch {
	case err != nil && report.StateRefusal != nil:
		return sqlerr.New(sqlerr.Semantic, pos, "%s (%v)", message(report.StateRefusal), err)
	case err != nil:
		return sqlerr.New(sqlerr.Semantic, pos, "%v", err)
	}
	report.StateRefusal = nil
	report.State = diff.Accumulators()
	return nil
}

// message is an error's message without its position.
func message(err error) string {
	if se, ok := err.(*sqlerr.Error); ok {
		return se.Msg
	}
	return err.Error()
}
