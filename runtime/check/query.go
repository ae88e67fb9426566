package check

import (
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/naming"
)

// Query is a persistent query as the checks see it: its id and plan.
type Query struct {
	ID   string
	Plan *planner.Plan
}

// Reads reports whether the query reads source name.
func (q Query) Reads(name string) bool {
	for _, s := range q.Plan.Sources {
		if s.Name == name {
			return true
		}
	}
	return false
}

// Writes reports whether the query writes into source name.
func (q Query) Writes(name string) bool {
	return q.Plan.Sink != nil && q.Plan.Sink.Name == name
}

// ownsSink reports whether q is the CREATE … AS SELECT query (or a
// SOURCE table's materialization) that owns its sink, not an INSERT
// INTO.
func (q Query) ownsSink() bool {
	return q.Plan.Sink != nil && naming.OwnsSink(q.ID)
}

// Writers lists the ids of the queries writing into name, but except.
func Writers(queries []Query, name, except string) []string {
	var out []string
	for _, q := range queries {
		if q.ID != except && q.Writes(name) {
			out = append(out, q.ID)
		}
	}
	return out
}
