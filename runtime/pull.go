package runtime

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/cluster"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/pull"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// materialized finds the persistent query whose state store holds table
// name, and how to read rows from it.
func (e *Engine) materialized(name string) (*query, *physical.Materialization, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, q := range e.sortedQueries() {
		if q.plan.Sink == nil || q.plan.Sink.Name != name {
			continue
		}
		m, err := q.topo.Materialization(q.plan)
		if err != nil || m != nil {
			return q, m, err
		}
	}
	return nil, nil, nil
}

// startTablePull runs a pull query over a materialized table: every
// partition of the table's store is read (committed state, as of the
// writing query's last commit), each entry becomes a table row, and the
// rows go through the pull query's own filter and projection.
func (e *Engine) startTablePull(t *transient, plan *planner.Plan, pos ast.Pos) (exec.Runner, error) {
	src := plan.Sources[0]
	q, m, err := e.materialized(src.Name)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, sqlerr.New(sqlerr.Unsupported, pos, "The %s %s is not materialized: pull queries read tables created by CREATE TABLE ... AS SELECT. Use a push query (EMIT CHANGES) instead.", "table", src.Name)
	}
	var cond ast.Expr
	if f, ok := plan.Filter(); ok {
		cond = f.Cond
	}
	if err := (pull.Where{Keys: src.Schema.Keys(), Windowed: m.Windowed(), Scan: t.cfg.Pull}).Check(cond, pos); err != nil {
		return nil, err
	}
	if err := e.awaitCaughtUp(t, q); err != nil {
		return nil, err
	}
	parts, err := e.storePartitions(q, m)
	if err != nil {
		return nil, err
	}
	keys, isLookup := pull.LookupKeys(t.plan, m)
	needed := pull.AllPartitions(parts)
	if isLookup {
		needed = pull.LookupPartitions(t.plan, q.plan, q.topo, m, keys, parts)
	}
	// Routed before the answer starts: a partition no live server holds
	// is an error response, not a truncated table.
	route, err := e.peers.Route(clusterQuery{q}, e.pullOf(t, m, needed))
	if err != nil {
		return nil, err
	}
	// Likewise a host that does not answer (dead, its heartbeats not yet
	// timed out): its partitions go to their next host (package cluster).
	remotes, fellBack, err := e.peers.OpenRemotes(clusterQuery{q}, route, e.forwardOf(t), e.logger)
	if err != nil {
		return nil, err
	}
	local := append(route.Local, fellBack...)
	go func() {
		t.finishWith(e.scanStore(t, q, m, local, remotes, keys, isLookup), "")
	}()
	return exec.RunnerFunc(func() error { return nil }), nil
}

// storePartitions is the partition count of a store (its changelog's).
func (e *Engine) storePartitions(q *query, m *physical.Materialization) (int32, error) {
	for _, s := range q.topo.SubTopologies[m.Sub].Stores {
		if s.Name == m.Store {
			n, ok, err := e.cluster.Partitions(context.Background(), s.Changelog)
			if err != nil || !ok {
				return 0, fmt.Errorf("changelog %s of %s: %v", s.Changelog, q.id, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("query %s has no store %s", q.id, m.Store)
}

// scanStore reads the store partitions the pull query needs (those of
// its keys for a key lookup, else all): this server's own (local), then
// each other host's through its opened forward (package cluster), whose
// bodies it closes.
func (e *Engine) scanStore(t *transient, q *query, m *physical.Materialization, local []int32, remotes []*peer.Forward, keys [][]byte, isLookup bool) error {
	defer cluster.CloseAll(remotes)
	env := t.taskEnv(t.topo.SubTopologies[0], 0)
	task, err := t.topo.NewTask(0, env)
	if err != nil {
		return err
	}
	var done bool
	if isLookup {
		done, err = pull.Lookup(e.db, task, q.appID, m, local, keys)
	} else {
		done, err = pull.Scan(e.db, task, q.appID, m, local)
	}
	for _, f := range remotes {
		if done || err != nil {
			break
		}
		done, err = f.Rows(func(vals []any) bool { return t.Row(&types.Row{Values: vals}) })
	}
	return err
}

// pullOf is what the route of t's pull query over store partitions
// parts depends on: the store's sub-topology, what a forwarded query was
// sent for, and the client's standby-read settings.
func (e *Engine) pullOf(t *transient, m *physical.Materialization, parts []int32) cluster.Pull {
	read := props.NewParser(e.table, t.props)
	return cluster.Pull{Sub: m.Sub, Parts: parts, Only: t.only,
		StandbyReads: read.Bool(props.StandbyReads), MaxLag: read.Int(props.MaxOffsetLag)}
}

// forwardOf is the forward of t's pull query to another server (its
// partitions set per host): the same SQL, the properties the client set
// and its credentials.
func (e *Engine) forwardOf(t *transient) peer.ForwardRequest {
	return peer.ForwardRequest{SQL: t.sql, Props: overrides(t.props, e.props), Authorization: t.auth, Done: t.Closed()}
}

// overrides returns the properties of set that differ from the server's
// base: what the client set for this query.
func overrides(set, base props.Properties) map[string]string {
	out := map[string]string{}
	for k, v := range set {
		if base[k] != v {
			out[k] = v
		}
	}
	return out
}
