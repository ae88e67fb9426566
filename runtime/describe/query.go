package describe

import (
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
)

// Query is a persistent query as SHOW QUERIES, DESCRIBE and EXPLAIN show
// it, taken by the engine under its lock.
type Query struct {
	ID, SQL    string
	AppID      string            // consumer group and internal topics' prefix
	State      string            // this server's QueryState
	HostStates map[string]string // the state on every server of the service id
	Guarantee  string            // processing.guarantee
	Plan       *planner.Plan
	Topology   *physical.Topology
	// Overridden are the query's properties that differ from the
	// server's, as SHOW PROPERTIES shows them (secrets hidden).
	Overridden map[string]any
	Errors     []api.QueryError // the last errors it hit, oldest first
	// Stats reads its figures (DESCRIBE EXTENDED), only when shown.
	Stats func() Stats
}

// Stats are a query's figures for DESCRIBE EXTENDED.
type Stats struct {
	Processed int64 // input records processed
	Failed    int64 // processing-log entries other than late records
	Late      int64 // records dropped for arriving after their window closed
	Skipped   int64 // records a join skipped for a null key or value
	LogLost   int64 // processing-log entries the log could not write
	// FeedErrors counts the standby feeder's errors, LastFeedError the
	// last one's message.
	FeedErrors    int64
	LastFeedError string
	State         []string // restores, store sizes and stream times, a line each
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

// Transient is a running push query or PRINT, as SHOW QUERIES lists it.
type Transient struct{ ID, SQL string }

// Running is a query's row of SHOW QUERIES and of DESCRIBE's read and
// write queries.
func Running(q Query) api.RunningQuery {
	counts := api.StatusCount{}
	for _, st := range q.HostStates {
		counts[st]++
	}
	rq := api.RunningQuery{QueryString: q.SQL, ID: q.ID, StatusCount: counts,
		QueryType: api.QueryPersistent, State: q.State, ProcessingGuarantee: q.Guarantee}
	if q.Plan.Sink != nil {
		rq.Sinks = []string{q.Plan.Sink.Name}
		rq.SinkKafkaTopics = []string{q.Plan.Sink.Topic}
	}
	return rq
}

// Queries is SHOW QUERIES [EXTENDED]: the persistent queries in the
// order given, then (not EXTENDED) the transient ones.
func Queries(text string, extended bool, queries []Query, transients []Transient) api.Entity {
	if extended {
		out := api.QueryDescriptionList{StatementText: text}
		for _, q := range queries {
			out.QueryDescriptions = append(out.QueryDescriptions, Description(q))
		}
		return out
	}
	out := api.QueriesList{StatementText: text}
	for _, q := range queries {
		out.Queries = append(out.Queries, Running(q))
	}
	for _, t := range transients {
		out.Queries = append(out.Queries, api.RunningQuery{QueryString: t.SQL, ID: t.ID,
			StatusCount: api.StatusCount{"RUNNING": 1}, QueryType: api.QueryPush, State: "RUNNING"})
	}
	return out
}

// Description describes a running persistent query (EXPLAIN id, SHOW
// QUERIES EXTENDED).
func Description(q Query) api.QueryDescription {
	d := Plan(q.Plan, q.Topology, q.SQL)
	d.ID = q.ID
	d.QueryType = api.QueryPersistent
	d.ConsumerGroupID = q.AppID
	d.ProcessingGuarantee = q.Guarantee
	state := q.State
	d.State = &state
	d.KsqlHostQueryStatus = q.HostStates
	d.OverriddenProperties = q.Overridden
	d.QueryErrors = q.Errors
	return d
}

// Plan describes a plan and its topology (EXPLAIN <statement>, and the
// part of a running query's description its plan gives).
func Plan(plan *planner.Plan, topo *physical.Topology, sql string) api.QueryDescription {
	d := api.QueryDescription{StatementText: sql, Fields: api.FieldInfosOf(*plan.Root.Schema()),
		Topology: topo.Describe(), ExecutionPlan: planner.Explain(plan.Root)}
	for _, s := range plan.Sources {
		d.Sources = append(d.Sources, s.Name)
	}
	if plan.Sink != nil {
		d.Sinks = []string{plan.Sink.Name}
	}
	return d
}

// Statement describes a statement's plan for EXPLAIN <statement>: a
// persistent query's or a push query's.
func Statement(plan *planner.Plan, topo *physical.Topology, sql string) api.QueryDescription {
	d := Plan(plan, topo, sql)
	if plan.Kind != planner.Persistent {
		d.QueryType = api.QueryPush
	} else {
		d.QueryType = api.QueryPersistent
	}
	return d
}
