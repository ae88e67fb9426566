package physical_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
)

// streamJoinTopology builds a LEFT stream–stream join WITHIN 10 SECONDS
// of l and r.
func streamJoinTopology(t *testing.T) *physical.Topology {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE STREAM l (k VARCHAR KEY, x INT) WITH (KAFKA_TOPIC='l', VALUE_FORMAT='JSON');
CREATE STREAM r (k VARCHAR KEY, y INT) WITH (KAFKA_TOPIC='r', VALUE_FORMAT='JSON');
CREATE STREAM j AS SELECT l.k, x, y FROM l LEFT JOIN r WITHIN 10 SECONDS ON l.k = r.k;`)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts[:2] {
		src, err := p.CreateSource(st.(*ast.CreateSource))
		if err != nil {
			t.Fatal(err)
		}
		p.Catalog.Put(src)
	}
	plan, err := p.PlanCreateAs(stmts[2].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// formatted keeps topic's records as "key=value@time" at once (the
// sink reuses its buffers).
type formatted struct {
	topic string
	out   []string
}

func (f *formatted) Emit(r *physical.OutRecord) {
	if r.Topic == f.topic {
		f.out = append(f.out, fmt.Sprintf("%s=%s@%d", r.Key, r.Value, r.Timestamp))
	}
}

// TestStreamJoinRestartKeepsResults runs the same records through a
// stream–stream join task that is recreated on its stores halfway (a
// restart: its window caches start empty and are refilled from the
// stores) and through one that is not. Their results are the same: rows
// stored before the restart still join, both near the newest time (from
// the refilled cache) and long before it (from the store).
func TestStreamJoinRestartKeepsResults(t *testing.T) {
	topo := streamJoinTopology(t)
	rec := func(topic, key, value string, ts int64) *physical.InRecord {
		return &physical.InRecord{Topic: topic, Key: []byte(key), Value: []byte(value), Timestamp: ts}
	}
	before := []*physical.InRecord{
		rec("r", "k1", `{"Y":1}`, 1000), rec("r", "k2", `{"Y":2}`, 95_000), rec("r", "k1", `{"Y":3}`, 100_000),
		rec("l", "k3", `{"X":30}`, 99_000),
	}
	after := []*physical.InRecord{
		rec("l", "k1", `{"X":10}`, 100_005), // joins Y=3, 5 ms before it
		rec("l", "k1", `{"X":11}`, 5000),    // joins Y=1, 99 s behind the newest row
		rec("l", "k2", `{"X":12}`, 90_000),  // joins Y=2
		rec("r", "k3", `{"Y":4}`, 101_000),  // joins X=30, a left row of before the restart
		rec("l", "k9", `{"X":13}`, 100_010), // no match: nulls
	}
	run := func(restart bool) string {
		stores, emit := mapStores{}, &formatted{topic: "J"}
		newTask := func() *physical.Task {
			tk, err := topo.NewTask(0, &physical.TaskEnv{Emit: emit, Stores: stores})
			if err != nil {
				t.Fatal(err)
			}
			return tk
		}
		tk := newTask()
		for i, r := range append(append([]*physical.InRecord{}, before...), after...) {
			if restart && i == len(before) {
				tk = newTask()
			}
			if err := tk.Process(r); err != nil {
				t.Fatal(err)
			}
		}
		return strings.Join(emit.out, "\n")
	}
	want := run(false)
	for _, joined := range []string{`k1={"X":10,"Y":3}@100005`, `k1={"X":11,"Y":1}@5000`, `k2={"X":12,"Y":2}@95000`,
		`k3={"X":30,"Y":4}@101000`, `k9={"X":13,"Y":null}@100010`} {
		if !strings.Contains(want, joined) {
			t.Fatalf("without a restart: no %s in\n%s", joined, want)
		}
	}
	if got := run(true); got != want {
		t.Fatalf("with a restart:\n%s\nwithout:\n%s", got, want)
	}
}
