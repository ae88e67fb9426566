package runtime

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
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
func (e *Engine) startTablePull(t *transient, plan *planner.Plan, pos ast.Pos) (runner, error) {
	src := plan.Sources[0]
	q, m, err := e.materialized(src.Name)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, sqlerr.New(sqlerr.Unsupported, pos, "The %s %s is not materialized: pull queries read tables created by CREATE TABLE ... AS SELECT. Use a push query (EMIT CHANGES) instead.", "table", src.Name)
	}
	parts, err := e.storePartitions(q, m)
	if err != nil {
		return nil, err
	}
	go func() {
		t.finishWith(e.scanStore(t, q, m, parts), "")
	}()
	return runnerFunc(func() error { return nil }), nil
}

// storePartitions is the partition count of a store (its changelog's).
func (e *Engine) storePartitions(q *query, m *physical.Materialization) (int32, error) {
	for _, s := range q.topo.SubTopologies[m.Sub].Stores {
		if s.Name == m.Store {
			n, ok, err := e.cluster.partitions(context.Background(), s.Changelog)
			if err != nil || !ok {
				return 0, fmt.Errorf("changelog %s of %s: %v", s.Changelog, q.id, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("query %s has no store %s", q.id, m.Store)
}

func (e *Engine) scanStore(t *transient, q *query, m *physical.Materialization, parts int32) error {
	env, _ := t.taskEnvs(nil, nil).build(t.topo.SubTopologies[0], 0)
	task, err := t.topo.NewTask(0, env)
	if err != nil {
		return err
	}
	if key, ok := e.lookupKey(t, m); ok {
		return e.lookup(task, q, m, parts, key)
	}
	for p := int32(0); p < parts; p++ {
		var ferr error
		id := state.StoreID{App: q.appID, Name: m.Store, Partition: p}
		err := e.db.ReadCommitted(id, nil, nil, func(k, v []byte) bool {
			row, ok, err := m.Row(k, v)
			if err != nil || !ok {
				ferr = err
				return err == nil
			}
			ferr = task.ProcessRow(row)
			return ferr == nil
		})
		if physical.IsStopped(ferr) {
			return nil
		}
		if err == nil {
			err = ferr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// lookupKey returns the store key of a pull query whose WHERE is an
// equality on the single key column (`WHERE k = literal`), the common key
// lookup, so it reads one entry per partition instead of scanning.
func (e *Engine) lookupKey(t *transient, m *physical.Materialization) ([]byte, bool) {
	f, ok := t.plan.Filter()
	if !ok || m.Windowed() {
		return nil, false
	}
	b, ok := f.Cond.(*ast.Binary)
	if !ok || b.Op != ast.OpEQ {
		return nil, false
	}
	ref, lit := asRefLiteral(b.L, b.R)
	if ref == nil {
		ref, lit = asRefLiteral(b.R, b.L)
	}
	keys := t.plan.Sources[0].Schema.Keys()
	if ref == nil || len(keys) != 1 || ref.Name != keys[0].Name {
		return nil, false
	}
	v, err := expr.Coerce(lit.Value, lit.Type, keys[0].Type)
	if err != nil {
		return nil, false
	}
	k, err := m.Key([]any{v})
	return k, err == nil
}

func asRefLiteral(a, b ast.Expr) (*ast.ColumnRef, *ast.Literal) {
	r, ok1 := a.(*ast.ColumnRef)
	l, ok2 := b.(*ast.Literal)
	if !ok1 || !ok2 {
		return nil, nil
	}
	return r, l
}

// lookup reads one key from every partition of the store (it lives in
// one of them).
func (e *Engine) lookup(task *physical.Task, q *query, m *physical.Materialization, parts int32, key []byte) error {
	for p := int32(0); p < parts; p++ {
		v, err := e.db.GetCommitted(state.StoreID{App: q.appID, Name: m.Store, Partition: p}, key)
		if err != nil || v == nil {
			if err != nil {
				return err
			}
			continue
		}
		row, ok, err := m.Row(key, v)
		if err != nil || !ok {
			return err
		}
		if err := task.ProcessRow(row); err != nil && !physical.IsStopped(err) {
			return err
		}
		return nil
	}
	return nil
}
