package physical_test

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/state"
)

// discard counts the records a task emits and keeps none.
type discard struct{ n int }

func (d *discard) Emit(*physical.OutRecord) { d.n++ }

// TestTumblingRecordAllocations pins what a record costs in allocations
// when it opens a new (key, window), as nearly every record of the
// TUMBLING benchmark does (5: the source row's values and the decoded
// MS boxed, which the tiny allocator packs two to a block, 1.5; the
// window's value kept decoded in the cache, one cell with its
// accumulators and results; the cache entry, its key inside; the sink's
// key; and the growth of the cache's map, amortized). The group key is encoded into a
// reused buffer, the value's accumulators and a new window's results
// share the value's allocation, and a new window is not read from the
// store (the window store's stamps).
func TestTumblingRecordAllocations(t *testing.T) {
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE STREAM pv (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT)
	    WITH (KAFKA_TOPIC='pv', VALUE_FORMAT='JSON', TIMESTAMP='MS');
	  CREATE TABLE per_minute AS SELECT USER_ID, COUNT(*) AS N FROM pv
	    WINDOW TUMBLING (SIZE 60 SECONDS) GROUP BY USER_ID EMIT CHANGES;`)
	if err != nil {
		t.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		t.Fatal(err)
	}
	p.Catalog.Put(src)
	plan, err := p.PlanCreateAs(stmts[1].(*ast.CreateAsSelect))
	if err != nil {
		t.Fatal(err)
	}
	topo, err := physical.Build(plan, physical.Options{AppID: "allocs"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := &discard{}
	tk, err := topo.NewTask(0, &physical.TaskEnv{Emit: out, Stores: &pebbleStores{db: db}})
	if err != nil {
		t.Fatal(err)
	}
	// Users 100 s apart, windows of 60 s: every record a new window.
	const users = 1000
	recs := make([]*physical.InRecord, 20*users)
	for i := range recs {
		ms := int64(i) * 100
		recs[i] = &physical.InRecord{Topic: "pv", Key: fmt.Appendf(nil, "user%d", i%users),
			Value: fmt.Appendf(nil, `{"PAGE":"p%d","MS":%d}`, i%7, ms), Timestamp: ms}
	}
	next := 0
	process := func() {
		if err := tk.Process(recs[next]); err != nil {
			t.Fatal(err)
		}
		next++
	}
	for range users { // the cache's map and the stamps' table grow here
		process()
	}
	allocs := testing.AllocsPerRun(10*users, process)
	if out.n != next {
		t.Fatalf("%d records emitted %d results, want one each", next, out.n)
	}
	t.Logf("%.1f allocations per record", allocs)
	if allocs > tumblingRecordAllocs && !invariantsBuild {
		t.Errorf("a record opening a new window made %.1f allocations, want at most %d", allocs, tumblingRecordAllocs)
	}
}

// tumblingRecordAllocs is the bound TestTumblingRecordAllocations pins.
const tumblingRecordAllocs = 5
