package runtime

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// CREATE OR REPLACE … AS SELECT of a sink whose query runs upgrades that
// query in place, as ksqlDB does:
//
//	check (planUpgrade): one writer, planner.CheckQueryUpgrade, the
//	      sources, the topology under the old application id, its
//	      stores against the old ones' (keepState: physical.CompareState
//	      decides the stateful steps ksqlDB's rules refuse)
//	      ── refused: nothing changed, nothing recorded, the old query runs
//	register the sink's new schemas (the subject's compatibility check)
//	record the command (same query id, application-id prefix, formats)
//	catalog: the sink's new schema
//	e.mu free: stop the old runner (its tasks commit: at_least_once
//	      commits its offsets, exactly_once_v2 ends its transaction), then
//	      start the new topology in the same group from those offsets
//
// EXPLAIN CREATE OR REPLACE runs the same check and prints its report
// without changing anything. A replay of the command log starts no query
// before the whole log is applied (startPending), so a restart runs only
// the latest plan of each query.

// upgrade is a checked in-place upgrade of a running query.
type upgrade struct {
	old    *query
	plan   *planner.Plan
	topo   *physical.Topology
	report *planner.UpgradeReport
}

// sinkWriters lists the persistent queries writing into name, by id.
func (e *Engine) sinkWriters(name string) []*query {
	var out []*query
	for _, q := range e.sortedQueries() {
		if q.plan.Sink != nil && q.plan.Sink.Name == name {
			out = append(out, q)
		}
	}
	return out
}

// planUpgrade checks that st may replace the query writing into its sink
// in place; nil without error means no query writes into the sink (a
// source created by CREATE STREAM/TABLE, or whose query was terminated):
// the statement then starts a new query.
func (e *Engine) planUpgrade(ctx context.Context, st *ast.CreateAsSelect, topicPrefix string, cmd *command) (*upgrade, error) {
	writers := e.sinkWriters(st.Name)
	switch {
	case len(writers) == 0:
		return nil, nil
	case len(writers) > 1:
		ids := make([]string, len(writers))
		for i, q := range writers {
			ids[i] = q.id
		}
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "REPLACE for sink %s is not supported because there are multiple queries writing into it: [%s]",
			st.Name, strings.Join(ids, ", "))
	}
	plan, err := e.plannerFor(upgradeCommand(cmd, writers[0])).PlanCreateAs(st, planner.WithTopicPrefix(topicPrefix))
	if err != nil {
		return nil, err
	}
	return e.checkReplace(ctx, writers[0], plan, st.P)
}

// upgradeCommand is the command whose formats plan an upgrade of old:
// the replayed one, or for a new statement one with old's, so the new
// plan's internal topics are those old's command asked for.
func upgradeCommand(cmd *command, old *query) *command {
	if cmd != nil {
		return cmd
	}
	return &command{InternalFormats: old.formats}
}

// checkReplace checks that plan may replace the running query old in
// place and builds its topology under old's application id.
func (e *Engine) checkReplace(ctx context.Context, old *query, plan *planner.Plan, pos ast.Pos) (*upgrade, error) {
	report, err := planner.CheckQueryUpgrade(old.plan, plan, pos)
	if err != nil {
		return nil, err
	}
	if err := e.checkSourcesReadable(plan, pos); err != nil {
		return nil, err
	}
	if err := e.checkCopartitioned(ctx, plan, pos); err != nil {
		return nil, err
	}
	plan.Sink.Partitions = old.plan.Sink.Partitions
	topo, err := physical.Build(plan, physical.Options{AppID: old.appID, ParseTimestamp: e.parseTimestamp,
		LegacyInternalJSON: old.topo.RepartitionKeysAreStoreKeys(), LegacyStoreJSON: old.topo.LegacyStores(),
		LegacyStoreKeysJSON: old.topo.LegacyStoreKeys(), LegacyJoinStoreNumbers: old.topo.LegacyJoinStoreNumbers()})
	if err != nil {
		return nil, err
	}
	e.queryBuilds++
	if err := keepState(old.topo, topo, report, pos); err != nil {
		return nil, err
	}
	return &upgrade{old: old, plan: plan, topo: topo, report: report}, nil
}

// keepState compares the state of the running query's topology with the
// upgrade's (physical.CompareState): an upgrade whose stores cannot be
// kept is refused, with ksqlDB's message when ksqlDB refuses it too
// (report.StateRefusal) and the reason; one they can is allowed even
// where ksqlDB refuses it (adding an aggregate keeps every group's other
// accumulators), and the report says what is kept, added and dropped.
func keepState(old, next *physical.Topology, report *planner.UpgradeReport, pos ast.Pos) error {
	diff, err := physical.CompareState(old, next)
	switch {
	case err != nil && report.StateRefusal != nil:
		return sqlerr.New(sqlerr.Semantic, pos, "%s (%v)", errMessage(report.StateRefusal), err)
	case err != nil:
		return sqlerr.New(sqlerr.Semantic, pos, "%v", err)
	}
	report.StateRefusal = nil
	report.State = diff.Accumulators()
	return nil
}

// replaceQuery runs a checked upgrade: createAsSelect's CREATE OR
// REPLACE of a sink with a running query, or insertInto's INSERT INTO
// WITH (QUERY_ID) of a running query's id (statusID is the command id
// the statement answers with).
func (e *Engine) replaceQuery(ctx context.Context, stmt ast.Statement, statusID string, s *session, cmd *command, u *upgrade) (api.Entity, error) {
	pos := stmtPos(stmt)
	if cmd == nil {
		if err := e.checkUpgradeSchemas(ctx, u, pos); err != nil {
			return nil, err
		}
	}
	if _, ok := stmt.(*ast.CreateAsSelect); ok && cmd == nil {
		if err := e.registerSchemas(ctx, u.plan.Sink, true, pos); err != nil {
			return nil, err
		}
	}
	c, err := e.recordUpgrade(ctx, stmt, s, cmd, u.old)
	if err != nil {
		return nil, err
	}
	e.cat.Put(u.plan.Sink)
	if err := e.swapQuery(ctx, c, u); err != nil {
		return nil, fmt.Errorf("the query %s was upgraded but could not start (a restart retries it): %w", c.QueryID, err)
	}
	e.statuses[statusID] = api.StatusSuccess
	return commandStatus(stmt, statusID, "Created query with ID "+c.QueryID, c.Seq, c.QueryID), nil
}

// stmtPos is where a query statement starts.
func stmtPos(stmt ast.Statement) ast.Pos {
	switch st := stmt.(type) {
	case *ast.CreateAsSelect:
		return st.P
	case *ast.InsertInto:
		return st.P
	}
	return ast.Pos{}
}

// recordUpgrade appends the command of an upgrade of q: q's id, its
// application-id prefix and its internal topics' and stores' formats, so a replay
// builds the new plan under the same names.
func (e *Engine) recordUpgrade(ctx context.Context, stmt ast.Statement, s *session, cmd *command, q *query) (*command, error) {
	c, err := e.record(ctx, stmt, s, cmd, nil, func(c *command) {
		c.QueryID = q.id
		c.AppPrefix = strings.TrimSuffix(q.appID, q.id)
		c.InternalFormats = q.formats
		switch {
		case q.topo.LegacyStores():
			c.StoreFormats = ""
		case q.topo.LegacyStoreKeys():
			c.StoreFormats = storeFormatsOfQuery
		}
	})
	return c, err
}

// swapQuery puts the upgraded query in place of the old one: the old
// runner stops once the engine lock is free, then the new query starts
// in the same group (during a replay, only once the log is applied).
func (e *Engine) swapQuery(ctx context.Context, c *command, u *upgrade) error {
	q, err := e.prepareQuery(ctx, c, u.plan, u.topo)
	if err != nil {
		return err
	}
	q.resume = true
	if !e.replaying { // a replay's queries have counted nothing yet
		q.upgraded, q.upgradedAt = u.old, time.Now()
	}
	old := u.old
	old.mu.Lock()
	r := old.runner
	old.runner = nil
	old.mu.Unlock()
	old.setState(StateTerminated, nil)
	e.queries[q.id] = q
	if e.replaying {
		e.pending = append(e.pending, q.id)
		return nil
	}
	e.deferStop(q.id, func() error {
		if r != nil {
			if err := r.Stop(); err != nil {
				e.logger.Warn("the query being upgraded stopped with an error", "query", q.id, "err", err)
			}
		}
		return e.startIfCurrent(q)
	})
	return nil
}

// startIfCurrent starts q unless a statement replaced or ended it since
// it was queued.
func (e *Engine) startIfCurrent(q *query) error {
	e.mu.Lock()
	defer e.unlock()
	if e.queries[q.id] != q || q.State() != StatePending {
		return nil
	}
	q.continueCounts()
	return q.start()
}

// startPending starts the queries a replay of the command log created
// (the latest plan of each). e.mu is held.
func (e *Engine) startPending() {
	ids := e.pending
	e.pending = nil
	for _, id := range ids {
		q := e.queries[id]
		if q == nil || q.State() != StatePending {
			continue
		}
		q.mu.Lock()
		running := q.runner != nil
		q.mu.Unlock()
		if running {
			continue
		}
		if err := q.start(); err != nil {
			e.logger.Error("a replayed query could not start", "query", id, "err", err)
		}
	}
}

// explainUpgrade is EXPLAIN CREATE OR REPLACE of a sink with a running
// query: the new plan and, in Upgrade, whether it replaces the query in
// place and what it keeps, adds and drops, or why it is refused. Nothing
// changes.
func (e *Engine) explainUpgrade(ctx context.Context, st *ast.CreateAsSelect, s *session) (api.QueryDescription, bool, error) {
	u, err := e.planUpgrade(ctx, st, s.props[props.OutputTopicPrefix], nil)
	if u == nil && err == nil {
		return api.QueryDescription{}, false, nil
	}
	if err != nil {
		plan, perr := e.planner.PlanCreateAs(st, planner.WithTopicPrefix(s.props[props.OutputTopicPrefix]))
		if perr != nil {
			return api.QueryDescription{}, true, err
		}
		d, derr := e.describePlan(plan, st.Text())
		if derr != nil {
			return api.QueryDescription{}, true, err
		}
		if w := e.sinkWriters(st.Name); len(w) > 0 {
			d.ID = w[0].id
		}
		d.Upgrade = "refused: " + errMessage(err) + "\nnothing changes: the running query goes on as it is\n"
		return d, true, nil
	}
	d := describe(u.plan, u.topo, st.Text())
	d.ID = u.old.id
	d.QueryType = api.QueryPersistent
	d.ConsumerGroupID = u.old.appID
	d.Upgrade = u.report.String() + topologyChanges(u.old.topo, u.topo) + schemaChanges(u.plan.Sink, len(u.report.Added) > 0)
	return d, true, nil
}

// explainInsertUpgrade is EXPLAIN INSERT INTO … WITH (QUERY_ID) of a
// running query's id: the upgrade's report or refusal; ok is false when
// the statement starts a new query.
func (e *Engine) explainInsertUpgrade(ctx context.Context, st *ast.InsertInto, plan *planner.Plan) (api.QueryDescription, bool) {
	id, ok, err := insertQueryID(st)
	old := e.queries[id]
	if err != nil || !ok || old == nil {
		return api.QueryDescription{}, false
	}
	u, err := e.checkReplace(ctx, old, plan, st.P)
	if err != nil {
		d, derr := e.describePlan(plan, st.Text())
		if derr != nil {
			return api.QueryDescription{}, false
		}
		d.ID = id
		d.Upgrade = "refused: " + errMessage(err) + "\nnothing changes: the running query goes on as it is\n"
		return d, true
	}
	d := describe(u.plan, u.topo, st.Text())
	d.ID, d.QueryType, d.ConsumerGroupID = id, api.QueryPersistent, old.appID
	d.Upgrade = u.report.String() + topologyChanges(old.topo, u.topo)
	return d, true
}

// topologyChanges lists the stores and internal topics an upgrade keeps,
// adds and drops.
func topologyChanges(old, next *physical.Topology) string {
	var b strings.Builder
	diff(&b, "stores", storeNames(old), storeNames(next))
	diff(&b, "internal topics", internalNames(old), internalNames(next))
	fmt.Fprintf(&b, "sink topic: %s (kept)\n", next.SinkTopic)
	return b.String()
}

func diff(b *strings.Builder, what string, old, next []string) {
	var kept, added, dropped []string
	for _, n := range next {
		if slices.Contains(old, n) {
			kept = append(kept, n)
		} else {
			added = append(added, n)
		}
	}
	for _, o := range old {
		if !slices.Contains(next, o) {
			dropped = append(dropped, o)
		}
	}
	if len(old)+len(next) == 0 {
		fmt.Fprintf(b, "%s: none\n", what)
		return
	}
	for _, l := range []struct {
		verb  string
		names []string
	}{{"kept", kept}, {"added", added}, {"dropped", dropped}} {
		if len(l.names) > 0 {
			fmt.Fprintf(b, "%s %s: %s\n", what, l.verb, strings.Join(l.names, ", "))
		}
	}
}

func storeNames(t *physical.Topology) []string {
	var out []string
	for _, st := range t.SubTopologies {
		for _, s := range st.Stores {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

func internalNames(t *physical.Topology) []string {
	var out []string
	for _, it := range t.Internal {
		out = append(out, it.Name)
	}
	sort.Strings(out)
	return out
}

// schemaChanges says which registry subjects of the sink get a new
// version (checked against the subject's compatibility when the
// statement runs).
func schemaChanges(sink *planner.Source, changed bool) string {
	var subjects []string
	for _, f := range []struct {
		uses    bool
		subject string
	}{{sink.KeyFormat.UsesRegistry(), sink.KeyFormat.Subject}, {sink.ValueFormat.UsesRegistry(), sink.ValueFormat.Subject}} {
		if f.uses {
			subjects = append(subjects, f.subject)
		}
	}
	if len(subjects) == 0 {
		return "schemas: no registry subjects\n"
	}
	if !changed {
		return "schemas: " + strings.Join(subjects, ", ") + " unchanged\n"
	}
	return "schemas: a new version of " + strings.Join(subjects, ", ") + " (must pass the subject's compatibility check)\n"
}

// errMessage is an error's message without its position.
func errMessage(err error) string {
	if se, ok := err.(*sqlerr.Error); ok {
		return se.Msg
	}
	return err.Error()
}

// reservedQueryPrefixes start the ids sqlstream gives queries; a
// QUERY_ID may not take them (ksqlDB's QueryIdUtil).
var reservedQueryPrefixes = []string{"INSERTQUERY_", "CTAS_", "CSAS_", "CST_"}

// insertQueryID is INSERT INTO's WITH (QUERY_ID='…'), upper-cased as
// ksqlDB does; ok is false without one.
func insertQueryID(st *ast.InsertInto) (string, bool, error) {
	p, ok := st.Props.Get("QUERY_ID")
	if !ok {
		return "", false, nil
	}
	raw, _ := p.Value.Value.(string)
	id := strings.ToUpper(raw)
	for _, prefix := range reservedQueryPrefixes {
		if strings.HasPrefix(id, prefix) {
			return "", false, sqlerr.New(sqlerr.Semantic, p.P, "Query IDs must not start with a reserved query ID prefix (%s). Got '%s'.",
				strings.Join(reservedQueryPrefixes, ", "), id)
		}
	}
	if id == "" || strings.IndexFunc(id, func(r rune) bool { return !(r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') }) >= 0 {
		return "", false, sqlerr.New(sqlerr.Semantic, p.P, "Query IDs may contain only alphanumeric characters and '_'. Got: '%s'", raw)
	}
	return id, true, nil
}
