package runtime

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// record appends an accepted statement to the command log (unless it is
// being replayed from it) and returns its sequence number.
func (e *Engine) record(ctx context.Context, stmt ast.Statement, s *session, cmd *command, queryID func(seq int64) string, edits ...func(*command)) (*command, error) {
	if cmd != nil {
		return cmd, nil
	}
	c := &command{SQL: stmt.Text(), Props: s.overrides(e.props), AppPrefix: e.queryAppPrefix(), InternalFormats: internalFormatsKsqlNumbers, StoreFormats: storeFormatsKeys}
	if _, ok := stmt.(*ast.CreateAsSelect); ok {
		// The sink topic's name takes the output prefix in force now, even
		// the server's: a replay after the server's prefix changed must
		// not move the query to another topic.
		c.Props[props.OutputTopicPrefix] = s.props[props.OutputTopicPrefix]
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
		id := func(seq int64) string { return cstID(src.Name, e.queryNumber(seq)) }
		if cstQuery, err = e.buildQuery(cst, id, cmd, st.P); err != nil {
			return nil, err
		}
	}
	if cmd == nil {
		if err := e.registerSchemas(ctx, src, false, st.P); err != nil {
			return nil, err
		}
	}
	if err := e.ensureSourceTopic(ctx, src, st.P, cmd != nil); err != nil {
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
		if k != props.OffsetReset {
			cst.Props[k] = v
		}
	}
	return cst.QueryID, e.startQuery(ctx, &cst, plan, b.topo, s)
}

// cstID is the id of the query materializing SOURCE table name.
func cstID(name string, n int64) string { return fmt.Sprintf("CST_%s_%d", name, n) }

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
// (checkDerivedNames); a replayed one's were when it was accepted.
func (e *Engine) buildQuery(plan *planner.Plan, queryID func(seq int64) string, cmd *command, pos ast.Pos) (queryBuild, error) {
	b := queryBuild{id: queryID(e.seq)}
	if cmd != nil {
		// A CREATE … AS SELECT records its query's id; the CST of a
		// SOURCE table is derived from its CREATE's sequence number.
		if b.id = cmd.QueryID; b.id == "" {
			b.id = queryID(cmd.Seq)
		}
		b.appID = e.commandAppID(&command{QueryID: b.id, AppPrefix: cmd.AppPrefix})
	} else {
		b.appID = e.queryAppID(b.id)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: b.appID, ParseTimestamp: e.parseTimestamp, LegacyInternalJSON: cmd != nil && legacyInternalJSON(cmd), LegacyStoreJSON: cmd != nil && legacyStoreJSON(cmd),
		LegacyStoreKeysJSON: cmd != nil && legacyStoreKeysJSON(cmd), LegacyJoinStoreNumbers: legacyJoinStoreNumbers(cmd)})
	if err != nil {
		return b, err
	}
	e.queryBuilds++
	b.topo = topo
	if cmd == nil {
		return b, e.checkDerivedNames(topo, b.id, pos)
	}
	return b, nil
}

// ensureSourceTopic checks the topic of a CREATE STREAM/TABLE: it must
// exist unless PARTITIONS is given, in which case it is created; an
// existing topic's partition count must match PARTITIONS.
func (e *Engine) ensureSourceTopic(ctx context.Context, src *planner.Source, pos ast.Pos, replay bool) error {
	n, exists, err := e.cluster.Partitions(ctx, src.Topic)
	if err != nil {
		return fmt.Errorf("could not describe topic %s: %w", src.Topic, err)
	}
	switch {
	case exists && src.Partitions > 0 && n != src.Partitions && !replay:
		return sqlerr.New(sqlerr.Kafka, pos, "A Kafka topic with the name '%s' already exists, with different partition/replica configuration than required. KSQL expects %d partitions (topic has %d).", src.Topic, src.Partitions, n)
	case exists:
		src.Partitions = n
		return nil
	case src.Partitions == 0 && e.autoCreateTopics:
		src.Partitions = 1
	case src.Partitions == 0:
		return sqlerr.New(sqlerr.Kafka, pos, "Kafka topic does not exist: %s", src.Topic)
	}
	if err := e.checkPartitions(src.Partitions, pos); err != nil {
		return err
	}
	return e.cluster.CreateTopic(ctx, exec.TopicSpec{Name: src.Topic, Partitions: src.Partitions, Replicas: src.Replicas})
}

// checkQueryCapacity refuses a new persistent query past
// ksql.query.persistent.active.limit, with ksqlDB's message. A replayed
// command (cmd set) is never refused: its query was accepted before.
func (e *Engine) checkQueryCapacity(cmd *command, pos ast.Pos) error {
	if cmd != nil || len(e.queries) < e.cfg.ActiveQueryLimit {
		return nil
	}
	return sqlerr.New(sqlerr.Semantic, pos, "Not executing statement(s) as it would cause the number of active, persistent queries "+
		"to exceed the configured limit. Use the TERMINATE command to terminate existing queries, or increase the '%s' setting "+
		"via the 'ksql-server.properties' file. Current persistent query count: %d. Configured limit: %d.",
		props.ActiveQueryLimit, len(e.queries), e.cfg.ActiveQueryLimit)
}

// replaceEnabled reads ksql.create.or.replace.enabled (default true): off,
// CREATE OR REPLACE … AS SELECT of an existing source is refused as
// ksqlDB refuses it, as a source that already exists.
func replaceEnabled(p props.Properties) bool {
	return !strings.EqualFold(strings.TrimSpace(p[props.CreateOrReplace]), "false")
}

func (e *Engine) createAsSelect(ctx context.Context, st *ast.CreateAsSelect, s *session, cmd *command) (api.Entity, error) {
	kind := strings.ToLower(st.Kind.String())
	if _, ok := e.cat.Get(st.Name); ok && st.IfNotExists {
		return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf("Cannot add %s %s: A %s with the same name already exists.", kind, st.Name, kind)}, nil
	}
	if old, ok := e.cat.Get(st.Name); ok && st.OrReplace {
		if !replaceEnabled(s.props) {
			return nil, sqlerr.New(sqlerr.Exists, st.P, "Cannot add %s '%s': A %s with the same name already exists",
				strings.ToLower(old.Kind.String()), st.Name, strings.ToLower(old.Kind.String()))
		}
		u, err := e.planUpgrade(ctx, st, s.props[props.OutputTopicPrefix], cmd)
		if err != nil {
			return nil, err
		}
		if u != nil {
			return e.replaceQuery(ctx, st, strings.ToLower(st.Kind.String())+"/"+st.Name+"/create", s, cmd, u)
		}
	}
	plan, err := e.plannerFor(cmd).PlanCreateAs(st, planner.WithTopicPrefix(s.props[props.OutputTopicPrefix]))
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
	if err := e.checkSourcesReadable(plan, st.P); err != nil {
		return nil, err
	}
	if err := e.checkCopartitioned(ctx, plan, st.P); err != nil {
		return nil, err
	}
	if err := e.checkQueryCapacity(cmd, st.P); err != nil {
		return nil, err
	}
	prefix := "CSAS_"
	if st.Kind == ast.Table {
		prefix = "CTAS_"
	}
	queryID := func(seq int64) string { return fmt.Sprintf("%s%s_%d", prefix, st.Name, e.queryNumber(seq)) }
	b, err := e.buildQuery(plan, queryID, cmd, st.P)
	if err != nil {
		return nil, err
	}
	if cmd == nil {
		if err := e.registerSchemas(ctx, plan.Sink, true, st.P); err != nil {
			return nil, err
		}
	}
	if err := e.ensureSinkTopic(ctx, plan.Sink, st.P); err != nil {
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

func (e *Engine) checkSourcesReadable(plan *planner.Plan, pos ast.Pos) error {
	for _, src := range plan.Sources {
		if plan.Sink != nil && src.Name == plan.Sink.Name {
			return sqlerr.New(sqlerr.Semantic, pos, "Cannot insert into %s: it is also a source of the query", src.Name)
		}
	}
	return nil
}

// ensureSinkTopic creates the sink topic of a CREATE … AS SELECT with the
// source's partition count (or PARTITIONS) when it does not exist.
func (e *Engine) ensureSinkTopic(ctx context.Context, sink *planner.Source, pos ast.Pos) error {
	n, exists, err := e.cluster.Partitions(ctx, sink.Topic)
	if err != nil {
		return err
	}
	if exists {
		sink.Partitions = n
		return nil
	}
	if sink.Partitions <= 0 {
		sink.Partitions = 1
	}
	if err := e.checkPartitions(sink.Partitions, pos); err != nil {
		return err
	}
	spec := exec.TopicSpec{Name: sink.Topic, Partitions: sink.Partitions, Replicas: sink.Replicas}
	if sink.Kind == ast.Table {
		spec.Configs = map[string]string{"cleanup.policy": "compact"}
	}
	return e.cluster.CreateTopic(ctx, spec)
}

// checkPartitions refuses to create a topic of more than
// props.MaxPartitions partitions: each costs memory in every query reading
// the topic.
func (e *Engine) checkPartitions(n int32, pos ast.Pos) error {
	limit := e.cfg.MaxPartitions
	if int(n) <= limit {
		return nil
	}
	return sqlerr.New(sqlerr.Kafka, pos, "Invalid value %d for PARTITIONS: a topic may have at most %d partitions (server property %s)", n, limit, props.MaxPartitions)
}

func (e *Engine) insertInto(ctx context.Context, st *ast.InsertInto, s *session, cmd *command) (api.Entity, error) {
	plan, err := e.plannerFor(cmd).PlanInsertInto(st)
	if err != nil {
		return nil, err
	}
	if err := e.checkSourcesReadable(plan, st.P); err != nil {
		return nil, err
	}
	if err := e.checkCopartitioned(ctx, plan, st.P); err != nil {
		return nil, err
	}
	queryID := func(seq int64) string { return fmt.Sprintf("INSERTQUERY_%d", e.queryNumber(seq)) }
	if id, ok, err := insertQueryID(st); err != nil {
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
	if err := e.checkQueryCapacity(cmd, st.P); err != nil {
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
	if cmd != nil || e.cluster.Synchronous() || props.NewParser(e.table, s.props).Str(props.OffsetReset) == "earliest" {
		return nil
	}
	if err := e.createInternalTopics(ctx, plan, b.topo); err != nil {
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
	appID := e.commandAppID(c)
	if err := e.createInternalTopics(ctx, plan, topo); err != nil {
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
	kind := strings.ToLower(st.Kind.String())
	src, ok := e.cat.Get(st.Name)
	if !ok {
		if st.IfExists {
			return api.WarningEntity{StatementText: st.Text(), Message: fmt.Sprintf("%s %s does not exist.", st.Kind, st.Name)}, nil
		}
		return nil, sqlerr.New(sqlerr.Unknown, st.P, "%s %s does not exist.", capitalize(kind), st.Name)
	}
	if st.DeleteTopic && src.ReadOnly {
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "Cannot delete topic for read-only source: %s", src.Name)
	}
	if src.Kind != st.Kind {
		return nil, sqlerr.New(sqlerr.Semantic, st.P, "Incompatible data source type is %s, but statement was DROP %s", src.Kind, st.Kind)
	}
	owner, users := e.queriesUsing(src.Name)
	if err := e.checkDropReaders(st, src.Name, owner, users); err != nil {
		return nil, err
	}
	c, err := e.record(ctx, st, s, cmd, nil)
	if err != nil {
		return nil, err
	}
	if owner != nil {
		e.retire(owner)
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
		// Subjects not on replay: a later CREATE may have registered them again.
		if err := e.deleteSubjects(ctx, src, cmd != nil); err != nil {
			return nil, fmt.Errorf("source %s and its topic %s were dropped but its schema registry subjects could not be deleted (delete them in the registry): %w", src.Name, src.Topic, err)
		}
	}
	id := kind + "/" + st.Name + "/drop"
	e.statuses[id] = api.StatusSuccess
	return commandStatus(st, id, fmt.Sprintf("Source `%s` (topic: %s) was dropped.", src.Name, src.Topic), c.Seq, ""), nil
}

// queriesUsing returns the CREATE … AS SELECT query that owns name (it is
// terminated with the source) and the ids of every other query that reads
// or writes it.
func (e *Engine) queriesUsing(name string) (*query, []string) {
	var owner *query
	var users []string
	for _, q := range e.sortedQueries() {
		isOwner := q.plan.Sink != nil && q.plan.Sink.Name == name && (strings.HasPrefix(q.id, "CSAS_") || strings.HasPrefix(q.id, "CTAS_") || strings.HasPrefix(q.id, "CST_"))
		if isOwner {
			owner = q
			continue
		}
		if q.reads(name) || (q.plan.Sink != nil && q.plan.Sink.Name == name) {
			users = append(users, q.id)
		}
	}
	return owner, users
}

// checkDropReaders refuses to drop a source others still use, in ksqlDB's
// order and words: first the INSERT INTO queries that read or write it
// (they must be terminated), then the sources whose CREATE … AS SELECT
// reads it (they must be dropped), listed by name in sorted order.
func (e *Engine) checkDropReaders(st *ast.Drop, name string, owner *query, users []string) error {
	var inserts, readers []string
	for _, id := range users {
		q := e.queries[id]
		if q != nil && isCreateAs(q) && q.plan.Sink.Name != name {
			readers = append(readers, q.plan.Sink.Name)
			continue
		}
		inserts = append(inserts, id)
	}
	if len(inserts) > 0 {
		in, out := e.insertReaders(name, owner), e.writers(name, owner)
		sort.Strings(in)
		sort.Strings(out)
		return sqlerr.New(sqlerr.InUse, st.P, "Cannot drop %s.\nThe following queries read from this source: [%s].\nThe following queries write into this source: [%s].\nYou need to terminate them before dropping %s.",
			name, strings.Join(in, ", "), strings.Join(out, ", "), name)
	}
	if len(readers) > 0 {
		sort.Strings(readers)
		return sqlerr.New(sqlerr.InUse, st.P, "Cannot drop %s.\nThe following streams and/or tables read from this source: [%s].\nYou need to drop them before dropping %s.",
			name, strings.Join(readers, ", "), name)
	}
	return nil
}

// isCreateAs reports whether q is the CREATE … AS SELECT query that owns
// its sink (not an INSERT INTO).
func isCreateAs(q *query) bool {
	return q.plan.Sink != nil && (strings.HasPrefix(q.id, "CSAS_") || strings.HasPrefix(q.id, "CTAS_") || strings.HasPrefix(q.id, "CST_"))
}

// insertReaders returns the ids of the queries other than CREATE … AS
// SELECT ones that read name.
func (e *Engine) insertReaders(name string, owner *query) []string {
	var out []string
	for _, q := range e.sortedQueries() {
		if q != owner && !isCreateAs(q) && q.reads(name) {
			out = append(out, q.id)
		}
	}
	return out
}

func (e *Engine) writers(name string, owner *query) []string {
	var out []string
	for _, q := range e.sortedQueries() {
		if q != owner && q.plan.Sink != nil && q.plan.Sink.Name == name {
			out = append(out, q.id)
		}
	}
	return out
}

func (q *query) reads(name string) bool {
	for _, s := range q.plan.Sources {
		if s.Name == name {
			return true
		}
	}
	return false
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
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

// createInternalTopics creates a topology's repartition and changelog
// topics with the partition count of its source topic.
func (e *Engine) createInternalTopics(ctx context.Context, plan *planner.Plan, topo *physical.Topology) error {
	n := plan.Sources[0].Partitions
	if n <= 0 {
		var err error
		if n, _, err = e.cluster.Partitions(ctx, plan.Sources[0].Topic); err != nil {
			return err
		}
	}
	for _, t := range topo.Internal {
		n, err := e.internalPartitions(ctx, plan, t, n)
		if err != nil {
			return err
		}
		spec := exec.TopicSpec{Name: t.Name, Partitions: max(n, 1), Replicas: e.cfg.InternalReplicas}
		switch {
		case t.Compact && t.RetentionMs > 0:
			spec.Configs = map[string]string{"cleanup.policy": "compact,delete", "retention.ms": strconv.FormatInt(t.RetentionMs, 10)}
		case t.Compact:
			spec.Configs = map[string]string{"cleanup.policy": "compact"}
		}
		if err := e.cluster.CreateTopic(ctx, spec); err != nil {
			return fmt.Errorf("could not create internal topic %s: %w", t.Name, err)
		}
	}
	return nil
}

// deleteInternalTopics removes a topology's internal topics (a transient
// query's when it ends, a persistent query's when it is terminated).
func (e *Engine) deleteInternalTopics(topo *physical.Topology) {
	for _, t := range topo.Internal {
		if err := e.cluster.DeleteTopic(context.Background(), t.Name); err != nil {
			e.logger.Warn("could not delete internal topic", "topic", t.Name, "err", err)
		}
	}
	e.deleteInternalSubjects(topo.Subjects)
}
