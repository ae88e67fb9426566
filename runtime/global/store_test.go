package global

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/state"
)

// joinFixture is a stream–global-table join's topology (orders JOIN
// tiers ON o.tier = t.rank, KAFKA keys, DELIMITED values) over a Store
// of its own: what the engine gives a query's tasks.
type joinFixture struct {
	t     *testing.T
	db    *state.DB
	topo  *physical.Topology
	spec  physical.GlobalStoreSpec
	store *Store
	reads *countedReads // the tasks' view of store
	log   *lockedLog
}

// countedReads counts the reads of the store a task makes.
type countedReads struct {
	*Store
	gets, scans int
}

func (c *countedReads) Get(key []byte) ([]byte, error) {
	c.gets++
	return c.Store.Get(key)
}

func (c *countedReads) Range(start, end []byte, fn func(k, v []byte) bool) error {
	c.scans++
	return c.Store.Range(start, end, fn)
}

func newJoinFixture(t *testing.T, join string) *joinFixture {
	t.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(`CREATE STREAM orders (id INT KEY, tier INT) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='DELIMITED', PARTITIONS=1);
CREATE GLOBAL TABLE tiers (rank INT PRIMARY KEY, label VARCHAR) WITH (KAFKA_TOPIC='tiers', KEY_FORMAT='KAFKA', VALUE_FORMAT='DELIMITED', PARTITIONS=1);
CREATE STREAM j AS SELECT o.id, t.label FROM orders o ` + join + ` tiers t ON o.tier = t.rank;`)
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
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &joinFixture{t: t, db: db, topo: topo, spec: topo.Globals[0], log: &lockedLog{}}
	f.open()
	return f
}

// open opens the fixture's store (again: what it kept, as after a
// restart) with its loader.
func (f *joinFixture) open() {
	f.t.Helper()
	s, err := openStore(f.db, state.StoreID{App: "app", Name: f.spec.Name}, 1<<20)
	if err != nil {
		f.t.Fatal(err)
	}
	if s.loader, err = f.spec.NewLoader(s, f.log); err != nil {
		f.t.Fatal(err)
	}
	f.store, f.reads = s, &countedReads{Store: s}
}

// load applies a record of the tiers topic: rank's label (a tombstone
// when label is nil).
func (f *joinFixture) load(offset int64, rank int, label *string) {
	f.t.Helper()
	r := &physical.InRecord{Topic: "tiers", Key: kafkaInt(rank), Offset: offset, Timestamp: 1000 + offset}
	if label != nil {
		r.Value = []byte(*label)
	}
	if err := f.store.Load(r, false); err != nil {
		f.t.Fatal(err)
	}
}

// task is a task of the query over the fixture's store.
func (f *joinFixture) task() (*physical.Task, *emitted) {
	f.t.Helper()
	emit := &emitted{}
	task, err := f.topo.NewTask(0, &physical.TaskEnv{Emit: emit, Log: f.log, Stores: dbStores{f.db},
		Globals: globalStores{f.spec.Name: f.reads}})
	if err != nil {
		f.t.Fatal(err)
	}
	return task, emit
}

// join processes an order of tier and returns the labels it was joined
// with (none: no match).
func join(t *testing.T, task *physical.Task, emit *emitted, offset int64, tier int) []string {
	t.Helper()
	emit.values = emit.values[:0]
	if err := task.Process(&physical.InRecord{Topic: "orders", Key: kafkaInt(1), Value: []byte(strconv.Itoa(tier)),
		Offset: offset, Timestamp: 5000 + offset}); err != nil {
		t.Fatal(err)
	}
	return emit.values
}

func label(s string) *string { return &s }

func kafkaInt(v int) []byte { return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)} }

// TestJoinSeesEveryWrite: a task's join keeps the rows it decoded, and
// still sees each write the store applied before its lookup: an update,
// a delete, a key added after the cache knew every key, a write of a key
// the task never looked up, a reset, and more writes between two lookups
// than the store remembers the keys of.
func TestJoinSeesEveryWrite(t *testing.T) {
	f := newJoinFixture(t, "JOIN")
	f.load(0, 3, label("gold"))
	f.load(1, 5, label("tin"))
	task, emit := f.task()
	step := func(what string, tier int, want ...string) {
		t.Helper()
		if got := join(t, task, emit, int64(len(what)), tier); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: tier %d joined %q, want %q", what, tier, got, want)
		}
	}
	reads := func(what string, gets, scans int) {
		t.Helper()
		if f.reads.gets != gets || f.reads.scans != scans {
			t.Errorf("%s: the task read the store %d times and scanned it %d, want %d and %d", what, f.reads.gets, f.reads.scans, gets, scans)
		}
	}
	step("loaded before the task", 3, "gold")
	reads("the first lookup", 0, 1) // one scan fills the cache
	step("cached", 3, "gold")
	step("a rank never loaded", 4)
	reads("cached lookups", 0, 1)
	f.load(2, 3, label("silver"))
	step("an update", 3, "silver")
	reads("the lookup after an update", 1, 1) // of the key written, only
	step("the update cached", 3, "silver")
	reads("the update cached", 1, 1)
	f.load(3, 4, label("iron"))
	step("a key added to a complete cache", 4, "iron")
	f.load(4, 3, nil)
	step("a delete", 3)
	f.load(5, 3, label("bronze"))
	f.load(6, 5, label("lead"))
	step("written again", 3, "bronze")
	step("written while another key was looked up", 5, "lead")
	if err := f.store.Reset(); err != nil {
		t.Fatal(err)
	}
	step("after a reset", 3)
	f.load(7, 3, label("copper"))
	step("reloaded", 3, "copper")
	for i := range recentMax + 10 {
		f.load(int64(8+i), 100+i, label("filler"))
	}
	f.load(int64(8+recentMax+10), 3, label("zinc"))
	step("past the keys the store remembers", 3, "zinc")
	step("past the keys the store remembers, another key", 100, "filler")
}

// TestJoinTableBiggerThanCache: a table too big for a task's cache is
// cached by its lookups (after the one scan that found it too big), and
// they still see its writes.
func TestJoinTableBiggerThanCache(t *testing.T) {
	f := newJoinFixture(t, "LEFT JOIN")
	long := strings.Repeat("x", 200)
	const rows = 20000 // ~10 MiB as the cache counts them, over its 8
	for i := range rows {
		f.load(int64(i), i, label(long))
	}
	task, emit := f.task()
	step := func(what string, tier int, want string, gets int) {
		t.Helper()
		got := join(t, task, emit, 0, tier)
		if fmt.Sprint(got) != "["+want+"]" || f.reads.gets != gets || f.reads.scans != 1 {
			t.Errorf("%s: tier %d joined %.20q with %d reads and %d scans of the store, want %.20q, %d and 1", what, tier, got, f.reads.gets, f.reads.scans, want, gets)
		}
	}
	step("the first lookup", 7, long, 1)
	step("cached", 7, long, 1)
	step("a rank never loaded", rows+5, "", 2)
	step("its absence cached", rows+5, "", 2)
	f.load(rows, 7, label("short"))
	step("an update", 7, "short", 3)
	f.load(rows+1, rows+5, label("new"))
	step("a key added", rows+5, "new", 4)
}

// TestJoinAfterRestore: a store reopened with the rows it loaded before
// (a restart from its local checkpoint) serves a new task's lookups, and
// the writes after it.
func TestJoinAfterRestore(t *testing.T) {
	f := newJoinFixture(t, "LEFT JOIN")
	f.load(0, 3, label("gold"))
	f.load(1, 4, label("iron"))
	f.load(2, 4, nil)
	if err := f.store.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.store.Close(); err != nil {
		t.Fatal(err)
	}
	f.open()
	cp, err := f.store.Checkpoint()
	if err != nil || cp[0] != 3 {
		t.Fatalf("the reopened store's checkpoint is %v (%v), want partition 0 at 3", cp, err)
	}
	task, emit := f.task()
	if got := join(t, task, emit, 0, 3); fmt.Sprint(got) != "[gold]" {
		t.Errorf("a restored row joined %q, want gold", got)
	}
	if got := join(t, task, emit, 1, 4); fmt.Sprint(got) != "[]" {
		t.Errorf("a row deleted before the restart joined %q, want the order alone", got)
	}
	f.load(3, 4, label("steel"))
	if got := join(t, task, emit, 2, 4); fmt.Sprint(got) != "[steel]" {
		t.Errorf("a row written after the restore joined %q, want steel", got)
	}
}

// TestJoinConcurrentWrites: the loader writes one key over and over
// (label = its offset) on its own goroutine while a task looks it up:
// each lookup sees at least the last write applied before it began, and
// never goes back. Run with -race.
func TestJoinConcurrentWrites(t *testing.T) {
	f := newJoinFixture(t, "JOIN")
	f.load(0, 3, label("0"))
	task, emit := f.task()
	const writes = 3000
	var applied atomic.Int64 // the last label whose Load returned
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := int64(1); i <= writes; i++ {
			r := &physical.InRecord{Topic: "tiers", Key: kafkaInt(3), Value: []byte(strconv.FormatInt(i, 10)), Offset: i}
			if err := f.store.Load(r, false); err != nil {
				t.Error(err)
				return
			}
			if i%7 == 0 { // some writes of other keys between
				if err := f.store.Load(&physical.InRecord{Topic: "tiers", Key: kafkaInt(int(i)), Value: []byte("x"), Offset: i}, false); err != nil {
					t.Error(err)
					return
				}
			}
			applied.Store(i)
		}
	}()
	last := int64(-1)
	for n := int64(0); ; n++ {
		before := applied.Load()
		got := join(t, task, emit, n, 3)
		if len(got) != 1 {
			t.Fatalf("lookup %d joined %q, want one row", n, got)
		}
		v, err := strconv.ParseInt(got[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if v < before || v < last {
			t.Fatalf("lookup %d joined write %d after write %d was applied (the previous lookup saw %d)", n, v, before, last)
		}
		last = v
		if before == writes {
			break
		}
	}
	<-done
	if last != writes {
		t.Errorf("the last lookup saw write %d, want %d", last, writes)
	}
}

// emitted keeps the labels of the joined rows a task emitted (the
// DELIMITED value is the label alone).
type emitted struct{ values []string }

func (e *emitted) Emit(r *physical.OutRecord) { e.values = append(e.values, string(r.Value)) }

// lockedLog is a processing log two goroutines may write.
type lockedLog struct {
	mu      sync.Mutex
	entries []*physical.LogEntry
}

func (l *lockedLog) Log(e *physical.LogEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

type dbStores struct{ db *state.DB }

func (d dbStores) Store(name string) (physical.Store, error) {
	return d.db.Store(state.StoreID{App: "app", Name: name})
}

type globalStores map[string]physical.Store

func (g globalStores) Global(name string) (physical.Store, error) {
	if s, ok := g[name]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("no global store %s", name)
}
