package runtime

import (
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// queryDescription describes a running persistent query (EXPLAIN id,
// SHOW QUERIES EXTENDED).
func (e *Engine) queryDescription(q *query) api.QueryDescription {
	d := describe(q.plan, q.topo, q.sql)
	d.ID = q.id
	d.QueryType = api.QueryPersistent
	d.ConsumerGroupID = q.appID
	d.ProcessingGuarantee = q.cfg.Guarantee.String()
	state := q.State().String()
	d.State = &state
	d.KsqlHostQueryStatus = q.hostStates()
	d.OverriddenProperties = map[string]any{}
	for k, v := range q.props {
		if e.props[k] != v {
			d.OverriddenProperties[k] = props.Shown(k, v)
		}
	}
	q.mu.Lock()
	for _, qe := range q.errs {
		d.QueryErrors = append(d.QueryErrors, api.QueryError{Timestamp: qe.at.UnixMilli(), ErrorMessage: qe.msg, Type: qe.kind})
	}
	q.mu.Unlock()
	return d
}

// describePlan describes a statement's plan for EXPLAIN <statement>.
func (e *Engine) describePlan(plan *planner.Plan, sql string) (api.QueryDescription, error) {
	topo, err := physical.Build(plan, physical.Options{AppID: e.queryAppID("<id>"), ParseTimestamp: e.parseTimestamp})
	if err != nil {
		return api.QueryDescription{}, err
	}
	d := describe(plan, topo, sql)
	if plan.Kind != planner.Persistent {
		d.QueryType = api.QueryPush
	} else {
		d.QueryType = api.QueryPersistent
	}
	return d, nil
}

func describe(plan *planner.Plan, topo *physical.Topology, sql string) api.QueryDescription {
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
