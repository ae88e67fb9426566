package runtime

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/check"
	"github.com/sqlstream/sqlstream/runtime/describe"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/naming"
	"github.com/sqlstream/sqlstream/runtime/registry"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// CREATE OR REPLACE … AS SELECT of a sink whose query runs upgrades that
// query in place, as ksqlDB does:
//
//	check (planUpgrade): one writer, planner.CheckQueryUpgrade, the
//	      sources, the topology under the old application id, its
//	      stores against the old ones' (check.KeepState: physical.CompareState
//	      decides the stateful steps ksqlDB's rules refuse)
//	      ── refused: nothing changed, nothing recorded, the old query runs
//	register the sink's new schemas (the subject's compatibility check)
//	record the command (same query id, application-id prefix, formats)
//	catalog: the sink's new schema
//	e.mu free: stop the old runner (at_least_once first drains its
//	      internal topics: exec.Drainer; its tasks commit: at_least_once
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
	if err := check.NotOwnSink(plan, pos); err != nil {
		return nil, err
	}
	if err := e.topics().CheckCopartitioned(ctx, plan, pos); err != nil {
		return nil, err
	}
	plan.Sink.Partitions = old.plan.Sink.Partitions
	topo, err := physical.Build(plan, physical.Options{AppID: old.appID, ParseTimestamp: e.reg.ParseTimestamp,
		LegacyInternalJSON: old.topo.RepartitionKeysAreStoreKeys(), LegacyStoreJSON: old.topo.LegacyStores(),
		LegacyStoreKeysJSON: old.topo.LegacyStoreKeys(), LegacyJoinStoreNumbers: old.topo.LegacyJoinStoreNumbers(),
		LegacyChangelogTimePrefix: old.topo.LegacyChangelogTimePrefix(), LegacyRepartitionNames: old.topo.LegacyRepartitionNames()})
	if err != nil {
		return nil, err
	}
	e.queryBuilds++
	if err := check.KeepState(old.topo, topo, report, pos); err != nil {
		return nil, err
	}
	return &upgrade{old: old, plan: plan, topo: topo, report: report}, nil
}

// replaceQuery runs a checked upgrade: createAsSelect's CREATE OR
// REPLACE of a sink with a running query, or insertInto's INSERT INTO
// WITH (QUERY_ID) of a running query's id (statusID is the command id
// the statement answers with).
func (e *Engine) replaceQuery(ctx context.Context, stmt ast.Statement, statusID string, s *session, cmd *command, u *upgrade) (api.Entity, error) {
	pos := stmtPos(stmt)
	if cmd == nil {
		if err := registry.CheckUpgrade(ctx, e.planner.Defaults.SchemaRegistry, u.old.topo, u.topo, pos); err != nil {
			return nil, err
		}
	}
	if _, ok := stmt.(*ast.CreateAsSelect); ok && cmd == nil {
		if err := registry.Register(ctx, u.plan.Sink, true, pos); err != nil {
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
		case q.topo.LegacyChangelogTimePrefix():
			c.StoreFormats = storeFormatsKeys
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
	if u.old.isPaused() {
		q.pauseRun() // the upgrade of a paused query starts paused
	}
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
	timeout := e.cfg.ShutdownTimeout
	e.deferStop(q.id, func() error {
		if r != nil {
			if err := stopDrained(r, timeout); err != nil {
				e.logger.Warn("the query being upgraded stopped with an error", "query", q.id, "err", err)
			}
		}
		return e.startIfCurrent(q)
	})
	return nil
}

// stopDrained stops the runner of a query being upgraded once it has
// processed what its internal topics hold (exec.Drainer), for at most
// the shutdown timeout: a repartition record the old plan wrote would
// otherwise reach the new plan without the columns it added, and an
// added aggregate see NULL arguments for records from before the
// upgrade.
func stopDrained(r exec.Runner, timeout time.Duration) error {
	d, ok := r.(exec.Drainer)
	if !ok {
		return r.Stop()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.StopDrained(ctx)
}

// startIfCurrent starts q unless a statement replaced or ended it since
// it was queued.
func (e *Engine) startIfCurrent(q *query) error {
	e.mu.Lock()
	defer e.unlock()
	if e.queries[q.id] != q || !q.startable() {
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
		if q == nil || !q.startable() {
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
	u, err := e.planUpgrade(ctx, st, s.cfg.OutputTopicPrefix, nil)
	if u == nil && err == nil {
		return api.QueryDescription{}, false, nil
	}
	if err != nil {
		plan, perr := e.planner.PlanCreateAs(st, planner.WithTopicPrefix(s.cfg.OutputTopicPrefix))
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
		d.Upgrade = describe.Refused(err)
		return d, true, nil
	}
	d := describe.Plan(u.plan, u.topo, st.Text())
	d.ID = u.old.id
	d.QueryType = api.QueryPersistent
	d.ConsumerGroupID = u.old.appID
	d.Upgrade = describe.Upgrade(u.report, u.old.topo, u.topo, u.plan.Sink)
	return d, true, nil
}

// explainInsertUpgrade is EXPLAIN INSERT INTO … WITH (QUERY_ID) of a
// running query's id: the upgrade's report or refusal; ok is false when
// the statement starts a new query.
func (e *Engine) explainInsertUpgrade(ctx context.Context, st *ast.InsertInto, plan *planner.Plan) (api.QueryDescription, bool) {
	id, ok, err := naming.InsertQueryID(st)
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
		d.Upgrade = describe.Refused(err)
		return d, true
	}
	d := describe.Plan(u.plan, u.topo, st.Text())
	d.ID, d.QueryType, d.ConsumerGroupID = id, api.QueryPersistent, old.appID
	d.Upgrade = describe.Upgrade(u.report, old.topo, u.topo, nil)
	return d, true
}
