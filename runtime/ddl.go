package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/check"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/naming"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/registry"
	"github.com/sqlstream/sqlstream/runtime/topics"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// record appends an accepted statement to the command log (unless it is
// being replayed from it) and returns its sequence number.
func (e *Engine) record(ctx context.Context, stmt ast.Statement, s *session, cmd *command, queryID func(seq int64) string, edits ...func(*command)) (*command, error) {
	if cmd != nil {
		return cmd, nil
	}
	c := &command{SQL: stmt.Text(), Props: s.overrides(e.props), AppPrefix: e.names.AppPrefix(), InternalFormats: internalFormatsNow, StoreFormats: storeFormatsTimestamps}
	if _, ok := stmt.(*ast.CreateAsSelect); ok {
		// The sink topic's name takes the output prefix in force now, even
		// the server's: a replay after the server's prefix changed must
		// not move the query to another topic.
		c.Props[props.OutputTopicPrefix] = s.cfg.OutputTopicPrefix
	}
	c.Seq = e.seq
	if queryID != nil {
		c.QueryID = queryID(c.Seq)
		e.queryCount++
	}
	for _, edit := range edits {
		edit(c)
	}
	if e.cmdLog != nil {
		if err := e.cmdLog.Append(ctx, c); err != nil {
			return nil, fmt.Errorf("could not write to the command topic: %w", err)
		}
	}
	e.seq = c.Seq + 1
	return c, nil
}

// overrides returns the session properties that differ from the server's.
func (s *session) overrides(server props.Properties) map[string]string {
	out := map[string]string{}
	for k, v := range s.props {
		if server[k] != v {
			out[k] = v
		}
	}
	return out
}

func commandStatus(stmt ast.Statement, id, msg string, seq int64, queryID string) api.Entity {
	st := api.CommandStatus{Status: api.StatusSuccess, Message: msg}
	if queryID != "" {
		st.QueryID = &queryID
	}
	return api.CommandStatusEntity{StatementText: stmt.Text(), CommandID: id, CommandStatus: st, CommandSequenceNumber: seq}
}

func (e *Engine) createSource(ctx context.Context, st *ast.CreateSource, s *session, cmd *command) (api.Entity, error) {
	kind := strings.ToLower(st.Kind.String())
	if _, ok := e.cat.Get(st.Name); ok && st.IfNotExists {
		return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf("Cannot add %s %s: A %s with the same name already exists.", kind, st.Name, kind)}, nil
	}
	src, err := e.planner.CreateSource(st)
	if err != nil {
		return nil, err
	}
	var cst *planner.Plan // the plan of a SOURCE table's materialization
	var cstQuery queryBuild
	if st.Source && st.Kind == ast.Table {
		if cst, err = e.planner.PlanMaterialization(src); err != nil {
			return nil, err
		}
		id := func(seq int64) string { return naming.CST(src.Name, e.queryNumber(seq)) }
		if cstQuery, err = e.buildQuery(cst, id, cmd, st.P); err != nil {
			return nil, err
		}
	}
	if cmd == nil {
		if err := registry.Register(ctx, src, false, st.P); err != nil {
			return nil, err
		}
	}
	if err := e.topics().EnsureSource(ctx, src, st.P, cmd != nil); err != nil {
		return nil, err
	}
	recorded := *st // with the inferred columns written out, so replays do not infer again
	recorded.SQL = planner.InferredStatement(st, src)
	src.SQL = recorded.SQL
	c, err := e.record(ctx, &recorded, s, cmd, nil)
	if err != nil {
		return nil, err
	}
	e.cat.Put(src)
	id := kind + "/" + st.Name + "/create"
	e.statuses[id] = api.StatusSuccess
	msg := "Stream created"
	if st.Kind == ast.Table {
		msg = "Table created"
	}
	var queryID string
	if cst != nil {
		if queryID, err = e.materializeSource(ctx, cst, cstQuery, c, s); err != nil {
			return nil, err
		}
		msg += " and materialized by query " + queryID
	}
	return commandStatus(st, id, msg, c.Seq, queryID), nil
}

// materializeSource starts the CST query that keeps a SOURCE table in a
// store, so pull queries can read it (b is its query, built by
// buildQuery).
func (e *Engine) materializeSource(ctx context.Context, plan *planner.Plan, b queryBuild, c *command, s *session) (string, error) {
	cst := *c
	cst.QueryID = b.id
	e.queryCount++
	cst.Props = map[string]string{props.OffsetReset: "earliest"} // a table is its whole topic
	for k, v := range c.Props {
		if !props.IsOffsetReset(k) {
			cst.Props[k] = v
		}
	}
	return cst.QueryID, e.startQuery(ctx, &cst, plan, b.topo, s)
}

// queryBuild is the query a statement starts, built once: its id, its
// application id and its topology, which the name check, initOffsets and
// startQuery share.
type queryBuild struct {
	id, appID string
	topo      *physical.Topology
}

// buildQuery builds the topology of the query a statement starts, under
// the application id of the id its command gets when recorded (a new
// statement, cmd nil: the next sequence number) or got (a replayed one:
// the prefix it recorded). A new statement's derived names are checked
// (naming.CheckDerived); a replayed one's were when it was accepted.
func (e *Engine) buildQuery(plan *planner.Plan, queryID func(seq int64) string, cmd *command, pos ast.Pos) (queryBuild, error) {
	b := queryBuild{id: queryID(e.seq)}
	if cmd != nil {
		// A CREATE … AS SELECT records its query's id; the CST of a
		// SOURCE table is derived from its CREATE's sequence number.
		if b.id = cmd.QueryID; b.id == "" {
			b.id = queryID(cmd.Seq)
		}
		b.appID = e.names.CommandAppID(cmd.AppPrefix, b.id)
	} else {
		b.appID = e.names.AppID(b.id)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: b.appID, ParseTimestamp: e.reg.ParseTimestamp, LegacyInternalJSON: cmd != nil && legacyInternalJSON(cmd), LegacyStoreJSON: cmd != nil && legacyStoreJSON(cmd),
		LegacyStoreKeysJSON: cmd != nil && legacyStoreKeysJSON(cmd), LegacyJoinStoreNumbers: legacyJoinStoreNumbers(cmd),
		LegacyChangelogTimePrefix: cmd != nil && legacyChangelogTimePrefix(cmd), LegacyRepartitionNames: legacyRepartitionNames(cmd)})
	if err != nil {
		return b, err
	}
	e.queryBuilds++
	b.topo = topo
	if cmd == nil {
		return b, naming.CheckDerived(topo, b.id, pos)
	}
	return b, nil
}

func (e *Engine) createAsSelect(ctx context.Context, st *ast.CreateAsSelect, s *session, cmd *command) (api.Entity, error) {
	kind := strings.ToLower(st.Kind.String())
	if _, ok := e.cat.Get(st.Name); ok && st.IfNotExists {
		return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf("Cannot add %s %s: A %s with the same name already exists.", kind, st.Name, kind)}, nil
	}
	if old, ok := e.cat.Get(st.Name); ok && st.OrReplace {
		// ksql.create.or.replace.enabled off: refused as ksqlDB refuses
		// it, as a source that already exists.
		if !s.cfg.CreateOrReplace {
			return nil, sqlerr.New(sqlerr.Exists, st.P, "Cannot add %s '%s': A %s with the same name already exists",
				strings.ToLower(old.Kind.String()), st.Name, strings.ToLower(old.Kind.String()))
		}
		u, err := e.planUpgrade(ctx, st, s.cfg.OutputTopicPrefix, cmd)
		if err != nil {
			return nil, err
		}
		if u != nil {
			return e.replaceQuery(ctx, st, strings.ToLower(st.Kind.String())+"/"+st.Name+"/create", s, cmd, u)
		}
	}
	plan, err := e.plannerFor(cmd).PlanCreateAs(st, planner.WithTopicPrefix(s.cfg.OutputTopicPrefix))
	if err != nil {
		return nil, err
	}
	if old, ok := e.cat.Get(st.Name); ok && st.OrReplace {
		// No query writes into the existing source: its schema may only
		// grow at the end, as any CREATE OR REPLACE of a source.
		if err := planner.CheckSinkUpgrade(old, plan.Sink, st.P); err != nil {
			return nil, err
		}
	}
	if err := check.NotOwnSink(plan, st.P); err != nil {
		return nil, err
	}
	if err := e.topics().CheckCopartitioned(ctx, plan, st.P); err != nil {
		return nil, err
	}
	if err := e.checkCapacity(cmd, st.P); err != nil {
		return nil, err
	}
	queryID := func(seq int64) string { return naming.CreateAs(st.Kind, st.Name, e.queryNumber(seq)) }
	b, err := e.buildQuery(plan, queryID, cmd, st.P)
	if err != nil {
		return nil, err
	}
	if cmd == nil {
		if err := registry.Register(ctx, plan.Sink, true, st.P); err != nil {
			return nil, err
		}
	}
	if err := e.topics().EnsureSink(ctx, plan.Sink, st.P); err != nil {
		return nil, err
	}
	if err := e.initOffsets(ctx, plan, b, s, cmd); err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, queryID)
	if err != nil {
		return nil, err
	}
	e.cat.Put(plan.Sink)
	if err := e.startQuery(ctx, c, plan, b.topo, s); err != nil {
		if cmd == nil {
			// The statement is in the command topic and the catalog, so
			// a restart retries the query; say so rather than pretend
			// nothing happened.
			return nil, fmt.Errorf("%s %s was created but its query %s could not start (a restart retries it; DROP %s %s removes it): %w",
				st.Kind, st.Name, c.QueryID, strings.ToUpper(kind), st.Name, err)
		}
		return nil, err
	}
	id := kind + "/" + st.Name + "/create"
	e.statuses[id] = api.StatusSuccess
	return commandStatus(st, id, "Created query with ID "+c.QueryID, c.Seq, c.QueryID), nil
}

func (e *Engine) insertInto(ctx context.Context, st *ast.InsertInto, s *session, cmd *command) (api.Entity, error) {
	plan, err := e.plannerFor(cmd).PlanInsertInto(st)
	if err != nil {
		return nil, err
	}
	if err := check.NotOwnSink(plan, st.P); err != nil {
		return nil, err
	}
	if err := e.topics().CheckCopartitioned(ctx, plan, st.P); err != nil {
		return nil, err
	}
	queryID := func(seq int64) string { return naming.Insert(e.queryNumber(seq)) }
	if id, ok, err := naming.InsertQueryID(st); err != nil {
		return nil, err
	} else if ok {
		if old := e.queries[id]; old != nil {
			// WITH (QUERY_ID) of a running query: an upgrade in place.
			u, err := e.checkReplace(ctx, old, plan, st.P)
			if err != nil {
				return nil, err
			}
			return e.replaceQuery(ctx, st, "stream/"+st.Target+"/create", s, cmd, u)
		}
		queryID = func(int64) string { return id }
	}
	if err := e.checkCapacity(cmd, st.P); err != nil {
		return nil, err
	}
	b, err := e.buildQuery(plan, queryID, cmd, st.P)
	if err != nil {
		return nil, err
	}
	if err := e.initOffsets(ctx, plan, b, s, cmd); err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, queryID)
	if err != nil {
		return nil, err
	}
	if err := e.startQuery(ctx, c, plan, b.topo, s); err != nil {
		return nil, err
	}
	id := "stream/" + st.Target + "/create"
	e.statuses[id] = api.StatusSuccess
	return commandStatus(st, id, "Created query with ID "+c.QueryID, c.Seq, c.QueryID), nil
}

// initOffsets commits, for a new query (cmd is nil) whose offset reset is
// "latest", the current end offsets of its source topics for its group,
// so records written right after the statement returns are never
// skipped. It runs before the command is appended: from then on the
// other servers of the service id start the query too, and the group,
// once it has members, refuses a commit from outside it.
func (e *Engine) initOffsets(ctx context.Context, plan *planner.Plan, b queryBuild, s *session, cmd *command) error {
	if cmd != nil || e.cluster.Synchronous() || s.cfg.FromEarliest {
		return nil
	}
	if err := e.topics().CreateInternal(ctx, plan, b.topo); err != nil {
		return err
	}
	if err := e.cluster.CommitEnds(ctx, b.appID, b.topo.SourceTopics()); err != nil {
		return fmt.Errorf("could not initialize offsets of %s: %w", b.id, err)
	}
	return nil
}

// startQuery starts a persistent query on its topology (built by
// buildQuery; its offsets are initialized by initOffsets). During a
// replay of the command log the query starts once the log is applied
// (startPending), so a query a later command upgrades runs only its
// latest plan.
func (e *Engine) startQuery(ctx context.Context, c *command, plan *planner.Plan, topo *physical.Topology, s *session) error {
	q, err := e.prepareQuery(ctx, c, plan, topo)
	if err != nil {
		return err
	}
	e.queries[q.id] = q
	if e.replaying {
		e.pending = append(e.pending, q.id)
		return nil
	}
	return q.start()
}

// prepareQuery creates a persistent query's internal topics and its
// query value, not started.
func (e *Engine) prepareQuery(ctx context.Context, c *command, plan *planner.Plan, topo *physical.Topology) (*query, error) {
	appID := e.names.CommandAppID(c.AppPrefix, c.QueryID)
	if err := e.topics().CreateInternal(ctx, plan, topo); err != nil {
		return nil, err
	}
	q, err := e.newQuery(c.QueryID, appID, c.SQL, plan, topo, e.props.Merge(c.Props))
	if err != nil {
		return nil, err
	}
	q.formats = c.InternalFormats
	if t := q.cfg.LateTopic; t != "" {
		if err := e.cluster.CreateTopic(ctx, exec.TopicSpec{Name: t, Partitions: max(plan.Sources[0].Partitions, 1), Replicas: 1}); err != nil {
			return nil, fmt.Errorf("could not create %s %s: %w", props.LateTopic, t, err)
		}
	}
	return q, nil
}

func (e *Engine) drop(ctx context.Context, st *ast.Drop, s *session, cmd *command) (api.Entity, error) {
	src, ok := e.cat.Get(st.Name)
	if !ok && st.IfExists {
		return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf("%s %s does not exist.", st.Kind, st.Name)}, nil
	}
	owner, err := check.Drop(st, src, e.checkViews())
	if err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, nil)
	if err != nil {
		return nil, err
	}
	if q := e.queries[owner]; q != nil {
		e.retire(q)
	}
	e.cat.Delete(src.Name)
	// Only the server that runs the statement deletes the topic, as in
	// ksqlDB (whose TopicDeleteInjector deletes it before the command is
	// enqueued): a DROP … DELETE TOPIC applied from the command topic (by
	// a follower, or replayed on a restart) must not delete the topic of
	// a source of that name created again since.
	if st.DeleteTopic && cmd == nil {
		if err := e.cluster.DeleteTopic(ctx, src.Topic); err != nil {
			return nil, fmt.Errorf("source %s was dropped but its topic %s could not be deleted: %w", src.Name, src.Topic, err)
		}
		// Subjects not on replay either: a later CREATE may have
		// registered them again.
		if err := registry.DeleteSubjects(ctx, src); err != nil {
			return nil, fmt.Errorf("source %s and its topic %s were dropped but its schema registry subjects could not be deleted (delete them in the registry): %w", src.Name, src.Topic, err)
		}
	}
	id := strings.ToLower(st.Kind.String()) + "/" + st.Name + "/drop"
	e.statuses[id] = api.StatusSuccess
	return commandStatus(st, id, fmt.Sprintf("Source `%s` (topic: %s) was dropped.", src.Name, src.Topic), c.Seq, ""), nil
}

// checkCapacity refuses a new persistent query past
// ksql.query.persistent.active.limit; a replayed command (cmd set) is
// never refused: its query was accepted before.
func (e *Engine) checkCapacity(cmd *command, pos ast.Pos) error {
	if cmd != nil {
		return nil
	}
	return check.Capacity(len(e.queries), e.cfg.ActiveQueryLimit, pos)
}

// checkViews are the persistent queries as package runtime/check sees
// them, in creation order.
func (e *Engine) checkViews() []check.Query {
	qs := e.sortedQueries()
	out := make([]check.Query, len(qs))
	for i, q := range qs {
		out[i] = check.Query{ID: q.id, Plan: q.plan}
	}
	return out
}

func (e *Engine) terminate(ctx context.Context, st *ast.Terminate, s *session, cmd *command) (api.Entity, error) {
	var targets []*query
	if st.All {
		targets = e.sortedQueries()
	} else {
		q, ok := e.queries[strings.ToUpper(st.QueryID)]
		if !ok {
			if id, ok := e.terminateTransient(st.QueryID); ok {
				return api.TerminateQueryEntity{StatementText: st.Text(), QueryID: id, WasTerminated: true}, nil
			}
			return nil, sqlerr.New(sqlerr.Unknown, st.P, "Unknown queryId: %s", st.QueryID)
		}
		targets = []*query{q}
	}
	c, err := e.record(ctx, st, s, cmd, nil)
	if err != nil {
		return nil, err
	}
	for _, q := range targets {
		e.retire(q)
	}
	id := "terminate/" + strings.ToUpper(st.QueryID) + "/execute"
	if st.All {
		id = "terminate/ALL/execute"
	}
	e.statuses[id] = api.StatusSuccess
	return commandStatus(st, id, "Query terminated.", c.Seq, ""), nil
}

// terminateTransient queues the end of the transient query id and returns
// its exact id. Transient ids are case-sensitive ("transient_S_123"), but
// the parser upper-cases an unquoted TERMINATE target, so a target that
// matches no id exactly matches one ignoring case (the random suffix
// keeps that unambiguous). e.mu is held.
func (e *Engine) terminateTransient(target string) (string, bool) {
	e.tmu.Lock()
	t, ok := e.transients[target]
	if !ok {
		for id, tr := range e.transients {
			if strings.EqualFold(id, target) {
				t, ok = tr, true
			}
		}
	}
	e.tmu.Unlock()
	if !ok {
		return "", false
	}
	e.deferStop(t.id, t.Close)
	return t.id, true
}

// topics checks and creates the topics of statements on the engine's
// cluster (package runtime/topics).
func (e *Engine) topics() topics.Topics {
	return topics.Topics{Cluster: e.cluster, MaxPartitions: e.cfg.MaxPartitions, InternalReplicas: e.cfg.InternalReplicas, AutoCreate: e.autoCreateTopics}
}

// deleteInternalTopics removes a topology's internal topics (a transient
// query's when it ends, a persistent query's when it is terminated).
func (e *Engine) deleteInternalTopics(topo *physical.Topology) {
	for _, t := range topo.Internal {
		if err := e.cluster.DeleteTopic(context.Background(), t.Name); err != nil {
			e.logger.Warn("could not delete internal topic", "topic", t.Name, "err", err)
		}
	}
	registry.DeleteInternal(e.planner.Defaults.SchemaRegistry, topo.Subjects, e.logger)
}
