package physical_test

import (
	"encoding/binary"
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
	tk, out := allocTask(t, `CREATE STREAM pv (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT)
	    WITH (KAFKA_TOPIC='pv', VALUE_FORMAT='JSON', TIMESTAMP='MS');
	  CREATE TABLE per_minute AS SELECT USER_ID, COUNT(*) AS N FROM pv
	    WINDOW TUMBLING (SIZE 60 SECONDS) GROUP BY USER_ID EMIT CHANGES;`)
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

// TestHoppingFinalRecordAllocations measures what a record costs in
// allocations in q5's first query: a HOPPING window of 10 s advancing by
// 2 s, EMIT FINAL, so each record updates five windows and buffers each
// one's result (the window's cell and cache entry, the buffered result,
// its own cache entry), then the closed windows are emitted.
func TestHoppingFinalRecordAllocations(t *testing.T) {
	tk, out := allocTask(t, `CREATE STREAM bid (AUCTION BIGINT KEY, PRICE BIGINT, MS BIGINT)
	    WITH (KAFKA_TOPIC='bid', VALUE_FORMAT='JSON', TIMESTAMP='MS');
	  CREATE TABLE counts AS SELECT AUCTION, AS_VALUE(AUCTION) AS A, COUNT(*) AS N, WINDOWSTART AS S FROM bid
	    WINDOW HOPPING (SIZE 10 SECONDS, ADVANCE BY 2 SECONDS, GRACE PERIOD 4 SECONDS) GROUP BY AUCTION EMIT FINAL;`)
	// 100 auctions (the key: no repartition), a record every 10 ms: each
	// (auction, window) gets about ten records, and windows close as time
	// passes.
	const auctions = 100
	recs := make([]*physical.InRecord, 200*auctions)
	for i := range recs {
		ms := int64(i) * 10
		recs[i] = &physical.InRecord{Topic: "bid", Key: binary.BigEndian.AppendUint64(nil, uint64(1000+i%auctions)),
			Value: fmt.Appendf(nil, `{"PRICE":%d,"MS":%d}`, 100+i%13, ms), Timestamp: ms}
	}
	next := 0
	process := func() {
		if err := tk.Process(recs[next]); err != nil {
			t.Fatal(err)
		}
		next++
	}
	for range 50 * auctions { // the caches grow and windows start closing here
		process()
	}
	emitted := out.n
	allocs := testing.AllocsPerRun(100*auctions, process)
	if out.n == emitted {
		t.Fatal("no window closed while measured")
	}
	t.Logf("%.1f allocations per record (five windows each)", allocs)
	if allocs > hoppingFinalRecordAllocs && !invariantsBuild {
		t.Errorf("a record of five hopping windows made %.1f allocations, want at most %d", allocs, hoppingFinalRecordAllocs)
	}
}

// hoppingFinalRecordAllocs is the bound TestHoppingFinalRecordAllocations pins.
const hoppingFinalRecordAllocs = 20

// allocTask plans script (a CREATE STREAM, then a CREATE … AS SELECT
// over it) and opens its task 0 over an in-memory Pebble store, its
// outputs counted by a discard.
func allocTask(t *testing.T, script string) (*physical.Task, *discard) {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(script)
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
	t.Cleanup(func() { db.Close() })
	out := &discard{}
	tk, err := topo.NewTask(0, &physical.TaskEnv{Emit: out, Stores: &pebbleStores{db: db}})
	if err != nil {
		t.Fatal(err)
	}
	return tk, out
}
