package runtime

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
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
		return nil, sqlerr.New(sqlerr.Unsupported, pos, "The %s %s is not materialized: pull queries read tables created by CREATE TABLE ... AS SELECT with GROUP BY. Use a push query (EMIT CHANGES) instead.", "table", src.Name)
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
	task, err := t.topo.NewTask(0, &physical.TaskEnv{Rows: t, Log: e.procLog})
	if err != nil {
		return err
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
