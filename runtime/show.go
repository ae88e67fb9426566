package runtime

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

func (e *Engine) show(ctx context.Context, st *ast.Show, s *session) (api.Entity, error) {
	switch st.What {
	case ast.ShowStreams, ast.ShowTables:
		return e.showSources(st), nil
	case ast.ShowTopics:
		return e.showTopics(ctx, st)
	case ast.ShowQueries:
		return e.showQueries(st), nil
	case ast.ShowProperties:
		return e.showProperties(st, s), nil
	case ast.ShowFunctions:
		return e.showFunctions(st), nil
	case ast.ShowVariables:
		return e.showVariables(st, s), nil
	case ast.ShowTypes:
		return e.showTypes(st), nil
	}
	return nil, sqlerr.New(sqlerr.Unsupported, ast.Pos{}, "SHOW: not supported")
}

func (e *Engine) showSources(st *ast.Show) api.Entity {
	kind := ast.Stream
	if st.What == ast.ShowTables {
		kind = ast.Table
	}
	if st.Extended {
		out := api.SourceDescriptionList{StatementText: st.Text()}
		for _, src := range e.cat.List() {
			if src.Kind == kind {
				out.SourceDescriptions = append(out.SourceDescriptions, e.describeSource(context.Background(), src, true))
			}
		}
		return out
	}
	var infos []api.SourceInfo
	for _, src := range e.cat.List() {
		if src.Kind == kind {
			infos = append(infos, sourceInfo(src))
		}
	}
	if kind == ast.Table {
		return api.TablesList{StatementText: st.Text(), Tables: infos}
	}
	return api.StreamsList{StatementText: st.Text(), Streams: infos}
}

func sourceInfo(src *planner.Source) api.SourceInfo {
	return api.SourceInfo{Type: src.Kind.String(), Name: src.Name, Topic: src.Topic,
		KeyFormat: src.KeyFormat.Name, ValueFormat: src.ValueFormat.Name, IsWindowed: src.Windowed(), IsGlobal: src.Global}
}

func (e *Engine) showTopics(ctx context.Context, st *ast.Show) (api.Entity, error) {
	ts, err := e.cluster.ListTopics(ctx)
	if err != nil {
		return nil, err
	}
	var shown []exec.TopicInfo
	for _, t := range ts {
		if st.All || !e.hiddenTopic(t) {
			shown = append(shown, t)
		}
	}
	if st.Extended {
		return e.showTopicsExtended(ctx, st, shown)
	}
	out := api.KafkaTopicsList{StatementText: st.Text()}
	for _, t := range shown {
		out.Topics = append(out.Topics, api.KafkaTopicInfo{Name: t.Name, ReplicaInfo: replicaInfo(t)})
	}
	return out, nil
}

// showTopicsExtended is SHOW [ALL] TOPICS EXTENDED: each topic with its
// consumers and consumer groups (see topicConsumers).
func (e *Engine) showTopicsExtended(ctx context.Context, st *ast.Show, ts []exec.TopicInfo) (api.Entity, error) {
	counts, err := e.cluster.TopicConsumers(ctx)
	if err != nil {
		return nil, err
	}
	out := api.KafkaTopicsListExtended{StatementText: st.Text()}
	for _, t := range ts {
		c := counts[t.Name]
		out.Topics = append(out.Topics, api.KafkaTopicInfoExtended{Name: t.Name, ReplicaInfo: replicaInfo(t),
			ConsumerCount: c.Consumers, ConsumerGroupCount: c.Groups})
	}
	return out, nil
}

// replicaInfo is the replica count of each partition.
func replicaInfo(t exec.TopicInfo) []int {
	out := make([]int, t.Partitions)
	for i := range out {
		out[i] = t.Replicas
	}
	return out
}

// hiddenTopic reports whether SHOW TOPICS leaves t out (SHOW ALL TOPICS
// lists it), as ksqlDB's ksql.hidden.topics does by default: Kafka's own
// topics, every name starting with '_' (the command topic, _schemas,
// _confluent-…), and the changelog and repartition topics of persistent
// queries (named after their application id). The processing log stays
// visible, as in ksqlDB.
func (e *Engine) hiddenTopic(t exec.TopicInfo) bool {
	if t.Internal || strings.HasPrefix(t.Name, "_") || strings.HasPrefix(t.Name, e.queryAppPrefix()) ||
		strings.HasPrefix(t.Name, e.opts.serviceID+legacyPersistentPrefix) {
		return true
	}
	for _, q := range e.queries {
		if strings.HasPrefix(t.Name, q.appID+"-") {
			return true
		}
	}
	return false
}

func (e *Engine) sortedQueries() []*query {
	out := make([]*query, 0, len(e.queries))
	for _, q := range e.queries {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].created.Before(out[j].created) || (out[i].created.Equal(out[j].created) && out[i].id < out[j].id)
	})
	return out
}

func (e *Engine) showQueries(st *ast.Show) api.Entity {
	if st.Extended {
		out := api.QueryDescriptionList{StatementText: st.Text()}
		for _, q := range e.sortedQueries() {
			out.QueryDescriptions = append(out.QueryDescriptions, e.queryDescription(q))
		}
		return out
	}
	out := api.QueriesList{StatementText: st.Text()}
	for _, q := range e.sortedQueries() {
		out.Queries = append(out.Queries, runningQuery(q))
	}
	e.tmu.Lock()
	for _, t := range e.transients {
		out.Queries = append(out.Queries, api.RunningQuery{QueryString: t.sql, ID: t.id,
			StatusCount: api.StatusCount{"RUNNING": 1}, QueryType: api.QueryPush, State: "RUNNING"})
	}
	e.tmu.Unlock()
	return out
}

func runningQuery(q *query) api.RunningQuery {
	state := q.State().String()
	counts := api.StatusCount{}
	for _, st := range q.hostStates() {
		counts[st]++
	}
	rq := api.RunningQuery{QueryString: q.sql, ID: q.id, StatusCount: counts,
		QueryType: api.QueryPersistent, State: state, ProcessingGuarantee: q.cfg.Guarantee.String()}
	if q.plan.Sink != nil {
		rq.Sinks = []string{q.plan.Sink.Name}
		rq.SinkKafkaTopics = []string{q.plan.Sink.Topic}
	}
	return rq
}

// showProperties lists every property the engine knows, as ksqlDB's
// ListPropertiesExecutor does: unset ones with a null value, secrets
// hidden, those the session overrode and those at their default named.
func (e *Engine) showProperties(st *ast.Show, s *session) api.Entity {
	out := api.PropertiesList{StatementText: st.Text()}
	for _, l := range e.table.List(s.props) {
		p := api.Property{Name: l.Name, Scope: l.Scope, Editable: !l.Fixed, Level: "SERVER"}
		if l.Set {
			p.Value = &l.Value
		}
		out.Properties = append(out.Properties, p)
		if s.props[l.Name] != e.props[l.Name] {
			out.OverwrittenProperties = append(out.OverwrittenProperties, l.Name)
		}
		if l.Default {
			out.DefaultProperties = append(out.DefaultProperties, l.Name)
		}
	}
	return out
}

func (e *Engine) showVariables(st *ast.Show, s *session) api.Entity {
	out := api.VariablesList{StatementText: st.Text()}
	names := make([]string, 0, len(s.vars))
	for k := range s.vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out.Variables = append(out.Variables, api.Variable{Name: k, Value: s.vars[k]})
	}
	return out
}

func (e *Engine) showFunctions(st *ast.Show) api.Entity {
	out := api.FunctionNameList{StatementText: st.Text()}
	for _, f := range e.reg.Functions() {
		out.Functions = append(out.Functions, api.SimpleFunctionInfo{Name: f.Name, Type: f.Kind.String(), Category: string(f.Category)})
	}
	return out
}

func (e *Engine) describeFunction(st *ast.DescribeFunction) (api.Entity, error) {
	name := strings.ToUpper(st.Name)
	overloads, ok := e.reg.Describe(name)
	if !ok {
		return nil, sqlerr.New(sqlerr.Unknown, st.P, "Can't find any functions with the name '%s'", name)
	}
	out := api.FunctionDescriptionList{StatementText: st.Text(), Name: name, Author: "sqlstream", Version: Version(), Path: "internal", Type: api.FunctionScalar}
	if k, ok := e.reg.Kind(name); ok {
		out.Type = k.String()
	}
	if def, ok := e.reg.Lookup(name); ok {
		out.Description = def.Description
	} else if def, ok := e.reg.LookupTable(name); ok {
		out.Description = def.Description
	}
	for _, o := range overloads {
		out.Functions = append(out.Functions, functionInfo(o))
	}
	return out, nil
}

func functionInfo(o functions.OverloadInfo) api.FunctionInfo {
	fi := api.FunctionInfo{ReturnType: o.ReturnType, Description: o.Description}
	for _, a := range o.Arguments {
		fi.Arguments = append(fi.Arguments, api.ArgumentInfo{Name: a.Name, Type: a.Type, IsVariadic: a.Variadic})
		fi.ArgumentTypes = append(fi.ArgumentTypes, a.Type)
	}
	return fi
}

func (e *Engine) describe(ctx context.Context, st *ast.Describe) (api.Entity, error) {
	if st.All {
		out := api.SourceDescriptionList{StatementText: st.Text()}
		for _, src := range e.cat.List() {
			if src.Kind == st.Kind {
				out.SourceDescriptions = append(out.SourceDescriptions, e.describeSource(ctx, src, st.Extended))
			}
		}
		return out, nil
	}
	src, ok := e.cat.Get(st.Name)
	if !ok {
		return nil, sqlerr.New(sqlerr.Unknown, st.P, "Could not find STREAM/TABLE '%s' in the Metastore", st.Name)
	}
	return api.SourceDescriptionEntity{StatementText: st.Text(), SourceDescription: e.describeSource(ctx, src, st.Extended)}, nil
}

func (e *Engine) describeSource(ctx context.Context, src *planner.Source, extended bool) api.SourceDescription {
	d := api.SourceDescription{Name: src.Name, Fields: api.FieldInfosOf(*src.Schema), Type: src.Kind.String(),
		Timestamp: src.TimestampColumn, Extended: extended, KeyFormat: src.KeyFormat.Name,
		ValueFormat: src.ValueFormat.Name, Topic: src.Topic, Statement: src.SQL, IsGlobal: src.Global}
	if src.Window != nil {
		w := windowName(src.Window.Kind)
		d.WindowType = &w
	}
	for _, q := range e.sortedQueries() {
		if q.reads(src.Name) {
			d.ReadQueries = append(d.ReadQueries, runningQuery(q))
		}
		if q.plan.Sink != nil && q.plan.Sink.Name == src.Name {
			d.WriteQueries = append(d.WriteQueries, runningQuery(q))
		}
	}
	if extended {
		d.Partitions = int(src.Partitions)
		d.Replication = 1
		d.Statistics, d.ErrorStats = e.sourceStats(src)
	}
	return d
}

func windowName(k ast.WindowKind) string {
	return [...]string{"TUMBLING", "HOPPING", "SESSION", "SLIDING"}[k]
}

// sourceStats summarizes the queries reading or writing a source: records
// processed and processing-log entries.
func (e *Engine) sourceStats(src *planner.Source) (string, string) {
	var processed, failed, late, skipped, feedErrs, logLost int64
	var restores []string
	var lastFeedErr string
	for _, q := range e.queries {
		if q.reads(src.Name) || (q.plan.Sink != nil && q.plan.Sink.Name == src.Name) {
			processed += q.processed.Load()
			// A late record is logged too, but counts as late only.
			failed += q.logged.Load() - q.late.Load()
			late += q.late.Load()
			skipped += q.skipped.Load()
			logLost += e.procLog.Lost(q.id)
			if n, last := q.replicaErrors(); n > 0 {
				feedErrs, lastFeedErr = feedErrs+n, last
			}
			if st := q.restores.Status(); st != "" {
				restores = append(restores, st)
			}
			restores = append(restores, e.storeSizes(q)...)
			restores = append(restores, q.streamTimeText()...)
		}
	}
	stats := fmt.Sprintf("consumer-messages-processed: %d", processed)
	if len(restores) > 0 {
		stats += "\nstate:\n" + strings.Join(restores, "\n")
	}
	errs := fmt.Sprintf("consumer-failed-messages: %d dropped-records (late): %d dropped-records (null key or value): %d", failed, late, skipped)
	if logLost > 0 {
		errs += fmt.Sprintf(" processing-log-entries-lost: %d", logLost)
	}
	if feedErrs > 0 {
		errs += fmt.Sprintf(" standby-feed-errors: %d (last: %s)", feedErrs, lastFeedErr)
	}
	return stats, errs
}

func (e *Engine) explain(ctx context.Context, st *ast.Explain, s *session) (api.Entity, error) {
	if st.Statement == nil {
		q, ok := e.queries[strings.ToUpper(st.QueryID)]
		if !ok {
			return nil, sqlerr.New(sqlerr.Unknown, st.P, "Query with id:%s does not exist, use SHOW QUERIES to view the full set of queries.", st.QueryID)
		}
		return api.QueryDescriptionEntity{StatementText: st.Text(), QueryDescription: e.queryDescription(q)}, nil
	}
	if cas, ok := st.Statement.(*ast.CreateAsSelect); ok && cas.OrReplace && replaceEnabled(s.props) {
		desc, ok, err := e.explainUpgrade(ctx, cas, s)
		if err != nil {
			return nil, err
		}
		if ok {
			return api.QueryDescriptionEntity{StatementText: st.Text(), QueryDescription: desc}, nil
		}
	}
	plan, err := e.planExplained(st.Statement, s)
	if err != nil {
		return nil, err
	}
	if ins, ok := st.Statement.(*ast.InsertInto); ok {
		if desc, ok := e.explainInsertUpgrade(ctx, ins, plan); ok {
			return api.QueryDescriptionEntity{StatementText: st.Text(), QueryDescription: desc}, nil
		}
	}
	desc, err := e.describePlan(plan, st.Statement.Text())
	if err != nil {
		return nil, err
	}
	return api.QueryDescriptionEntity{StatementText: st.Text(), QueryDescription: desc}, nil
}

// planExplained plans the statement EXPLAIN names without running it.
func (e *Engine) planExplained(stmt ast.Statement, s *session) (*planner.Plan, error) {
	switch st := stmt.(type) {
	case *ast.Query:
		return e.planner.PlanQuery(st)
	case *ast.CreateAsSelect:
		return e.planner.PlanCreateAs(st, planner.WithTopicPrefix(s.props[props.OutputTopicPrefix]))
	case *ast.InsertInto:
		return e.planner.PlanInsertInto(st)
	}
	return nil, sqlerr.New(sqlerr.Semantic, ast.Pos{}, "EXPLAIN only supports SELECT, CREATE … AS SELECT and INSERT INTO statements, or a query id")
}

// storeSizes describes the local store partitions of a query: keys and
// approximate bytes.
func (e *Engine) storeSizes(q *query) []string {
	var out []string
	for _, id := range e.db.Stores() {
		if id.App != q.appID {
			continue
		}
		bytes, keys, err := e.db.ApproxSize(id)
		if err != nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %d keys, ~%d bytes", id, keys, bytes))
	}
	return out
}

// formatMillis renders epoch millis as UTC time and the number.
func formatMillis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") + " (" + strconv.FormatInt(ms, 10) + ")"
}
