package runtime

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/cluster"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
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
	if err := (pullWhere{keys: src.Schema.Keys(), windowed: m.Windowed(), scan: t.cfg.Pull}).check(cond, pos); err != nil {
		return nil, err
	}
	if err := e.awaitCaughtUp(t, q); err != nil {
		return nil, err
	}
	parts, err := e.storePartitions(q, m)
	if err != nil {
		return nil, err
	}
	keys, isLookup := lookupKeys(t, m)
	needed := allPartitions(parts)
	if isLookup {
		needed = lookupPartitions(t, q, m, keys, parts)
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
		done, err = e.lookup(task, q, m, local, keys)
	} else {
		done, err = e.scanLocal(task, q, m, local)
	}
	for _, f := range remotes {
		if done || err != nil {
			break
		}
		done, err = f.Rows(func(vals []any) bool { return t.Row(&types.Row{Values: vals}) })
	}
	return err
}

// scanLocal feeds every entry of the given local store partitions to the
// pull query's task.
func (e *Engine) scanLocal(task *physical.Task, q *query, m *physical.Materialization, parts []int32) (bool, error) {
	for _, p := range parts {
		id := state.StoreID{App: q.appID, Name: m.Store, Partition: p}
		done, err := feedRows(task, m, func(visit func(k, v []byte) bool) error {
			return e.db.ReadCommitted(id, nil, nil, visit)
		})
		if done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// lookupKeys returns the sorted, distinct store keys of a pull query
// whose WHERE names them: an equality on the single key column
// (`WHERE k = literal`) or an IN list of literals (`WHERE k IN (…)`), so
// that it reads those entries instead of scanning the store.
func lookupKeys(t *transient, m *physical.Materialization) ([][]byte, bool) {
	f, ok := t.plan.Filter()
	keyCols := t.plan.Sources[0].Schema.Keys()
	if !ok || m.Windowed() || len(keyCols) != 1 {
		return nil, false
	}
	ref, lits := keyLiterals(f.Cond)
	if ref == nil || ref.Name != keyCols[0].Name {
		return nil, false
	}
	keys := make([][]byte, 0, len(lits))
	for _, lit := range lits {
		if lit.Value == nil {
			continue // NULL matches no key
		}
		v, err := expr.Coerce(lit.Value, lit.Type, keyCols[0].Type)
		if err != nil {
			return nil, false
		}
		k, err := m.Key([]any{v})
		if err != nil {
			return nil, false
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal), true
}

// keyLiterals returns the column and literals of `col = literal` or
// `col IN (literal, …)`, or nil.
func keyLiterals(cond ast.Expr) (*ast.ColumnRef, []*ast.Literal) {
	switch c := cond.(type) {
	case *ast.Binary:
		if c.Op != ast.OpEQ {
			return nil, nil
		}
		ref, lit := asRefLiteral(c.L, c.R)
		if ref == nil {
			ref, lit = asRefLiteral(c.R, c.L)
		}
		if ref == nil {
			return nil, nil
		}
		return ref, []*ast.Literal{lit}
	case *ast.In:
		ref, ok := c.X.(*ast.ColumnRef)
		if !ok || c.Not {
			return nil, nil
		}
		lits := make([]*ast.Literal, 0, len(c.List))
		for _, x := range c.List {
			lit, ok := x.(*ast.Literal)
			if !ok {
				return nil, nil
			}
			lits = append(lits, lit)
		}
		return ref, lits
	}
	return nil, nil
}

func asRefLiteral(a, b ast.Expr) (*ast.ColumnRef, *ast.Literal) {
	r, ok1 := a.(*ast.ColumnRef)
	l, ok2 := b.(*ast.Literal)
	if !ok1 || !ok2 {
		return nil, nil
	}
	return r, l
}

// lookup reads keys (sorted) from the given local partitions of the
// store (each key lives in one of them): one pass per partition, one
// iterator seeking from key to key.
func (e *Engine) lookup(task *physical.Task, q *query, m *physical.Materialization, parts []int32, keys [][]byte) (bool, error) {
	for _, p := range parts {
		if len(keys) == 0 {
			break
		}
		id := state.StoreID{App: q.appID, Name: m.Store, Partition: p}
		done, err := feedRows(task, m, func(visit func(k, v []byte) bool) error {
			return e.db.GetManyCommitted(id, keys, visit)
		})
		if done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// feedRows passes the store entries read visits (one partition) to the
// pull query's task as rows; done reports that the task stopped (its
// LIMIT was reached), which ends the read without an error.
func feedRows(task *physical.Task, m *physical.Materialization, read func(visit func(k, v []byte) bool) error) (done bool, err error) {
	var ferr error
	err = read(func(k, v []byte) bool {
		row, ok, err := m.Row(k, v)
		if err != nil || !ok {
			ferr = err
			return err == nil
		}
		ferr = task.ProcessRow(row)
		return ferr == nil
	})
	if physical.IsStopped(ferr) {
		return true, nil
	}
	if err == nil {
		err = ferr
	}
	return false, err
}
