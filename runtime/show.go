package runtime

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/describe"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// show answers SHOW and LIST from views of the catalog and the queries
// (package runtime/describe renders them). e.mu is held.
func (e *Engine) show(ctx context.Context, st *ast.Show, s *session) (api.Entity, error) {
	switch st.What {
	case ast.ShowStreams, ast.ShowTables:
		return describe.Sources(st, e.cat.List(), e.views()), nil
	case ast.ShowTopics:
		return describe.TopicList(ctx, e.cluster, st, e.hiddenPrefixes())
	case ast.ShowQueries:
		return describe.Queries(st.Text(), st.Extended, e.views(), e.transientViews()), nil
	case ast.ShowProperties:
		return describe.Properties(st.Text(), e.table, s.props, e.props), nil
	case ast.ShowFunctions:
		return describe.Functions(st.Text(), e.reg), nil
	case ast.ShowVariables:
		return describe.Variables(st.Text(), s.vars), nil
	case ast.ShowTypes:
		return describe.Types(st.Text(), e.cat.Types().List()), nil
	}
	return nil, sqlerr.New(sqlerr.Unsupported, ast.Pos{}, "SHOW: not supported")
}

// hiddenPrefixes are the prefixes of the internal topics of persistent
// queries, which SHOW TOPICS leaves out (describe.Hidden): the
// application-id prefixes of new and legacy queries and each query's
// "<application id>-".
func (e *Engine) hiddenPrefixes() []string {
	out := e.names.Hidden()
	for _, q := range e.queries {
		out = append(out, q.appID+"-")
	}
	return out
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

// views are the persistent queries as package describe shows them, in
// creation order. e.mu is held.
func (e *Engine) views() []describe.Query {
	qs := e.sortedQueries()
	out := make([]describe.Query, len(qs))
	for i, q := range qs {
		out[i] = e.view(q)
	}
	return out
}

func (e *Engine) view(q *query) describe.Query {
	v := describe.Query{ID: q.id, SQL: q.sql, AppID: q.appID, State: q.State().String(), HostStates: q.hostStates(),
		Guarantee: q.cfg.Guarantee.String(), Plan: q.plan, Topology: q.topo, Overridden: map[string]any{},
		Stats: func() describe.Stats { return e.queryStats(q) }}
	for k, val := range q.props {
		if e.props[k] != val {
			v.Overridden[k] = props.Shown(k, val)
		}
	}
	q.mu.Lock()
	for _, qe := range q.errs {
		v.Errors = append(v.Errors, api.QueryError{Timestamp: qe.at.UnixMilli(), ErrorMessage: qe.msg, Type: qe.kind})
	}
	q.mu.Unlock()
	return v
}

// queryStats are q's figures for DESCRIBE EXTENDED.
func (e *Engine) queryStats(q *query) describe.Stats {
	late := q.late.Load()
	// A late record is logged too, but counts as late only.
	s := describe.Stats{Processed: q.processed.Load(), Failed: q.logged.Load() - late, Late: late, Skipped: q.skipped.Load(),
		LogLost: e.procLog.Lost(q.id)}
	s.FeedErrors, s.LastFeedError = q.replicaErrors()
	if st := q.restores.Status(); st != "" {
		s.State = append(s.State, st)
	}
	s.State = append(s.State, e.storeSizes(q)...)
	return s
}

// storeSizes describes the local store partitions of a query (keys and
// approximate bytes) and its tasks' stream times.
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
	return append(out, describe.StreamTimes(q.streamTimes.Snapshot(), q.streamTimes.OpenSnapshot())...)
}

func (e *Engine) transientViews() []describe.Transient {
	e.tmu.Lock()
	defer e.tmu.Unlock()
	out := make([]describe.Transient, 0, len(e.transients))
	for _, t := range e.transients {
		out = append(out, describe.Transient{ID: t.id, SQL: t.sql})
	}
	return out
}

func (e *Engine) explain(ctx context.Context, st *ast.Explain, s *session) (api.Entity, error) {
	if st.Statement == nil {
		q, ok := e.queries[strings.ToUpper(st.QueryID)]
		if !ok {
			return nil, sqlerr.New(sqlerr.Unknown, st.P, "Query with id:%s does not exist, use SHOW QUERIES to view the full set of queries.", st.QueryID)
		}
		return api.QueryDescriptionEntity{StatementText: st.Text(), QueryDescription: describe.Description(e.view(q))}, nil
	}
	if cas, ok := st.Statement.(*ast.CreateAsSelect); ok && cas.OrReplace && s.cfg.CreateOrReplace {
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
		return e.planner.PlanCreateAs(st, planner.WithTopicPrefix(s.cfg.OutputTopicPrefix))
	case *ast.InsertInto:
		return e.planner.PlanInsertInto(st)
	}
	return nil, sqlerr.New(sqlerr.Semantic, ast.Pos{}, "EXPLAIN only supports SELECT, CREATE … AS SELECT and INSERT INTO statements, or a query id")
}

// describePlan describes a statement's plan for EXPLAIN <statement>, its
// topology built under a placeholder application id.
func (e *Engine) describePlan(plan *planner.Plan, sql string) (api.QueryDescription, error) {
	topo, err := physical.Build(plan, physical.Options{AppID: e.names.AppID("<id>"), ParseTimestamp: e.reg.ParseTimestamp})
	if err != nil {
		return api.QueryDescription{}, err
	}
	return describe.Statement(plan, topo, sql), nil
}
