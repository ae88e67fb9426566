package physical_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/state"
)

// changelogRecord is one record a store's changelog got.
type changelogRecord struct {
	key, value []byte
	ts         int64
}

// changelogs collects every store's changelog records, as its topic
// partition would hold them.
type changelogs map[string][]changelogRecord

type storeLog struct {
	logs changelogs
	name string
}

func (l storeLog) Send(key, value []byte, ts int64) {
	l.logs[l.name] = append(l.logs[l.name], changelogRecord{slices.Clone(key), slices.Clone(value), ts})
}

// loggedStores opens a task's stores in a Pebble DB, each changelogged,
// with the layout its topology's spec states (timed: the stores that are
// TimestampInRecord), as the runtime opens them.
type loggedStores struct {
	db    *state.DB
	logs  changelogs
	timed map[string]bool
	open  []physical.Store
}

// timedStores are the TimestampInRecord stores of the topologies.
func timedStores(topos ...*physical.Topology) map[string]bool {
	out := map[string]bool{}
	for _, t := range topos {
		for _, sub := range t.SubTopologies {
			for _, s := range sub.Stores {
				out[s.Name] = out[s.Name] || s.TimestampInRecord
			}
		}
	}
	return out
}

// layout are the options of a store named name and its restorers.
func (s *loggedStores) layout(name string) []state.StoreOption {
	if s.timed[name] {
		return []state.StoreOption{state.TimestampInRecord()}
	}
	return nil
}

func (s *loggedStores) Store(name string) (physical.Store, error) {
	st, err := s.db.Store(state.StoreID{App: "app", Name: name}, append(s.layout(name), state.WithChangelog(storeLog{s.logs, name}))...)
	s.open = append(s.open, st)
	return st, err
}

// commit flushes every store (its changelog records go out) and closes
// them, as a task that stops after its last commit.
func (s *loggedStores) close(t *testing.T) {
	t.Helper()
	for _, st := range s.open {
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s.open = nil
}

// upgradePlans plans a query and its upgrade over one stream.
func upgradePlans(t *testing.T, query, upgrade string) (*planner.Plan, *planner.Plan) {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE STREAM views (id STRING KEY, page STRING, ms BIGINT) WITH (KAFKA_TOPIC='views', VALUE_FORMAT='JSON', PARTITIONS=1);` + query + upgrade)
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	p.Catalog.Put(src)
	var plans []*planner.Plan
	for _, st := range stmts[1:] {
		plan, err := p.PlanCreateAs(st.(*ast.CreateAsSelect))
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, plan)
	}
	return plans[0], plans[1]
}

// sinkRows keeps the sink topic's records as key=value.
type sinkRows struct {
	topic string
	rows  []string
}

func (s *sinkRows) Emit(r *physical.OutRecord) {
	if r.Topic == s.topic {
		s.rows = append(s.rows, fmt.Sprintf("%s=%s", r.Key, r.Value))
	}
}

// runTopology feeds views records (page, ms) to every sub-topology of
// topo, repartition records to the task that reads them.
func runTopology(t *testing.T, topo *physical.Topology, stores physical.StoreProvider, sink *sinkRows, views [][2]any, from int) {
	t.Helper()
	pl := &pipeline{tasks: map[string]*physical.Task{}}
	out := &tee{pl: pl, sink: sink}
	for i, sub := range topo.SubTopologies {
		tk, err := topo.NewTask(i, &physical.TaskEnv{Emit: out, Stores: stores})
		if err != nil {
			t.Fatal(err)
		}
		for _, topic := range sub.Topics {
			pl.tasks[topic] = tk
		}
	}
	for i, v := range views {
		r := &physical.InRecord{Topic: "views", Key: []byte(fmt.Sprint("u", i)), Offset: int64(from + i),
			Value: []byte(fmt.Sprintf(`{"PAGE":%q,"MS":%d}`, v[0], v[1])), Timestamp: int64(1000 * (from + i))}
		if err := pl.process(r); err != nil {
			t.Fatal(err)
		}
	}
}

// tee routes repartition records through the pipeline and keeps the
// sink's.
type tee struct {
	pl   *pipeline
	sink *sinkRows
}

func (e *tee) Emit(r *physical.OutRecord) {
	e.sink.Emit(r)
	e.pl.Emit(r)
}

// storeContents lists a store's entries as the query's table rows.
func storeContents(t *testing.T, db *state.DB, topo *physical.Topology, plan *planner.Plan) []string {
	t.Helper()
	m, err := topo.Materialization(plan)
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Store(state.StoreID{App: "app", Name: m.Store})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var rows []string
	var rerr error
	err = st.Range(nil, nil, func(k, v []byte) bool {
		row, ok, err := m.Row(k, v)
		if err != nil {
			rerr = err
			return false
		}
		if ok {
			rows = append(rows, fmt.Sprint(row.Values))
		}
		return true
	})
	if err == nil {
		err = rerr
	}
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestUpgradeKeepsAggregateState runs a GROUP BY count over Pebble
// stores with changelogs, switches to its upgrade (count + sum, the
// count moved) on the same stores and changelogs and feeds more records:
// every count goes on from where it was, the sum counts only the records
// after the switch (as CompareState says), and a store restored from
// the changelog after the switch holds the same table. Likewise for a
// windowed (tumbling) and a session aggregation.
func TestUpgradeKeepsAggregateState(t *testing.T) {
	for _, window := range []string{"", "WINDOW TUMBLING (SIZE 1 HOUR)", "WINDOW SESSION (1 HOUR)"} {
		t.Run(window, func(t *testing.T) {
			upgradeKeepsAggregateState(t, window)
		})
	}
}

func upgradeKeepsAggregateState(t *testing.T, window string) {
	oldPlan, newPlan := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n FROM views `+window+` GROUP BY page;`,
		`CREATE TABLE per_page AS SELECT page, SUM(ms) AS total, COUNT(*) AS n FROM views `+window+` GROUP BY page;`)
	build := func(plan *planner.Plan) *physical.Topology {
		topo, err := physical.Build(plan, physical.Options{AppID: "app"})
		if err != nil {
			t.Fatal(err)
		}
		return topo
	}
	oldTopo, newTopo := build(oldPlan), build(newPlan)
	diff, err := physical.CompareState(oldTopo, newTopo)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff.String(); !strings.Contains(d, "COUNT(*) (KSQL_AGG_COUNT_3A42E83C): kept") ||
		!strings.Contains(d, "SUM(MS) (KSQL_AGG_SUM_4F0E7122): added, starts from its initial value for existing groups (counts only records after the upgrade)") {
		t.Fatalf("the plan does not say what the upgrade does:\n%s", d)
	}

	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	logs := changelogs{}
	sink := &sinkRows{topic: "PER_PAGE"}
	stores := &loggedStores{db: db, logs: logs, timed: timedStores(oldTopo, newTopo)}
	runTopology(t, oldTopo, stores, sink, [][2]any{{"a", 1}, {"b", 2}, {"d", 5}, {"a", 4}}, 0)
	stores.close(t)
	if got := storeContents(t, db, oldTopo, oldPlan); fmt.Sprint(got) != "[[a 2] [b 1] [d 1]]" {
		t.Fatalf("before the upgrade the store holds %v", got)
	}
	sink.rows = nil
	runTopology(t, newTopo, stores, sink, [][2]any{{"a", 10}, {"b", 20}, {"c", 30}, {"a", 100}}, 4)
	stores.close(t)
	var values []string
	for _, r := range sink.rows {
		if i := strings.LastIndex(r, "={"); i >= 0 { // not a merged session's tombstone
			values = append(values, r[i+1:])
		}
	}
	want := []string{`{"TOTAL":10,"N":3}`, `{"TOTAL":20,"N":2}`, `{"TOTAL":30,"N":1}`, `{"TOTAL":110,"N":4}`}
	if !slices.Equal(values, want) {
		t.Fatalf("after the upgrade the sink got\n%s\nwant the values\n%s", strings.Join(sink.rows, "\n"), strings.Join(want, "\n"))
	}
	after := storeContents(t, db, newTopo, newPlan)
	// d was last written before the upgrade: its row has no sum yet.
	if fmt.Sprint(after) != "[[a 110 4] [b 20 2] [c 30 1] [d 0 1]]" {
		t.Fatalf("after the upgrade the store holds %v", after)
	}

	// A server that lost its state restores the store from the changelog
	// (records of both layouts, d's only in the old one) and holds the
	// same table.
	restored, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	for name, recs := range logs {
		r := restored.Restorer(state.StoreID{App: "app", Name: name}, stores.layout(name)...)
		for i, rec := range recs {
			if err := r.Restore(rec.key, rec.value, rec.ts, int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Done(); err != nil {
			t.Fatal(err)
		}
	}
	if got := storeContents(t, restored, newTopo, newPlan); !slices.Equal(got, after) {
		t.Fatalf("restored from the changelog the store holds %v, want %v", got, after)
	}
}
