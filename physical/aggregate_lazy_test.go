package physical_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// TestAggregateCachedStateMatchesStored: an aggregation keeps its
// groups' accumulators decoded in the store's cache (encoded only when
// the cache writes them down), so it runs over Pebble stores with a
// cache and changelogs, committing every 7 records and restarting its
// tasks (cache gone, groups decoded from Pebble) halfway, against the
// same records over map stores, where each update is encoded at once:
// the outputs are the same rows, and the stored values the same bytes,
// in the store and as each key's last changelog record. COUNT_DISTINCT
// is the accumulator kept decoded for many updates (past 1,024 values it
// is a sketch), the others small ones. Likewise for tumbling and hopping
// windows (EMIT CHANGES and EMIT FINAL), whose windows' accumulators the
// window store's cache keeps decoded.
func TestAggregateCachedStateMatchesStored(t *testing.T) {
	for _, window := range []string{"", "WINDOW TUMBLING (SIZE 1000 SECONDS)",
		"WINDOW HOPPING (SIZE 1000 SECONDS, ADVANCE BY 500 SECONDS, GRACE PERIOD 0 SECONDS)",
		"WINDOW TUMBLING (SIZE 1000 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY page EMIT FINAL"} {
		t.Run(window, func(t *testing.T) {
			aggregateCachedStateMatchesStored(t, window, "COUNT(*) AS n, COUNT_DISTINCT(ms) AS d, MAX(ms) AS hi", 3000, 5000)
		})
	}
}

// TestAggregateOwnedStateMatchesStored: the cached run updates its
// COUNT_DISTINCT states in place (functions.OwnedAdder: the operator's
// own, never a decoded state), the uncached one never does (each update
// decodes its state from the bytes just written); over dense sketches
// (8,000 values a group), and with a call after COUNT_DISTINCT that
// fails (a DECIMAL(6,0) sum overflows part-way, dropping every row from
// then on), the rows and bytes are the same: no state written in place
// changes what a store, changelog or row saw, nor counts a dropped row.
func TestAggregateOwnedStateMatchesStored(t *testing.T) {
	aggregateCachedStateMatchesStored(t, "", "COUNT_DISTINCT(ms) AS d, COUNT_DISTINCT(ms % 700) AS e, COUNT(*) AS n", 16000, 1<<30)
	aggregateCachedStateMatchesStored(t, "", "COUNT_DISTINCT(ms) AS d, SUM(CAST(ms % 1000 AS DECIMAL(6,0))) AS s", 6000, 1<<30)
}

func aggregateCachedStateMatchesStored(t *testing.T, window, calls string, records, mod int) {
	group := " GROUP BY page"
	if strings.Contains(window, "GROUP BY") {
		group = ""
	}
	plan, _ := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, `+calls+` FROM views `+window+group+`;`,
		`CREATE TABLE other AS SELECT page, COUNT(*) AS n FROM views GROUP BY page;`)
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	views := make([][2]any, records)
	for i := range views {
		views[i] = [2]any{fmt.Sprint("p", i%2), i * 7 % mod}
	}
	plainDB, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer plainDB.Close()
	plain := &sinkRows{topic: "PER_PAGE"}
	plainStores := &uncachedStores{db: plainDB}
	runTopology(t, topo, plainStores, plain, views, 0)
	for _, st := range plainStores.open {
		if err := errors.Join(st.Flush(), st.Close()); err != nil {
			t.Fatal(err)
		}
	}

	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cached := &sinkRows{topic: "PER_PAGE"}
	stores := &loggedStores{db: db, logs: changelogs{}}
	for half := range 2 {
		pl := openPipeline(t, topo, stores, cached)
		for i := half * records / 2; i < (half+1)*records/2; i++ {
			r := &physical.InRecord{Topic: "views", Key: []byte(fmt.Sprint("u", i)), Offset: int64(i),
				Value: []byte(fmt.Sprintf(`{"PAGE":%q,"MS":%d}`, views[i][0], views[i][1])), Timestamp: int64(1000 * i)}
			if err := pl.process(r); err != nil {
				t.Fatal(err)
			}
			if i%7 == 6 {
				for _, st := range stores.open {
					if err := st.Flush(); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		stores.close(t) // a restart: the caches are gone
	}
	if len(plain.rows) == 0 {
		t.Fatal("no output rows")
	}
	if !slices.Equal(cached.rows, plain.rows) {
		t.Fatalf("outputs differ: %d cached, %d plain; first cached %v, plain %v", len(cached.rows), len(plain.rows),
			cached.rows[:min(3, len(cached.rows))], plain.rows[:min(3, len(plain.rows))])
	}
	agg := "Aggregate-Aggregate-Materialize"
	want := storeBytes(t, plainDB, agg)
	if len(want) < 2 {
		t.Fatalf("plain store holds %d groups, want at least 2", len(want))
	}
	last := map[string]string{}
	for _, r := range stores.logs[agg] {
		last[string(r.key)] = string(r.value)
	}
	got := storeBytes(t, db, agg)
	for k, v := range want {
		if got[k] != v || last[k] != v {
			t.Errorf("group %q: stored %d bytes, last changelog record %d bytes, want the plain store's %d bytes",
				k, len(got[k]), len(last[k]), len(v))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d keys stored, the plain store %d", len(got), len(want))
	}
}

// uncachedStores opens a task's stores without a cache: every update
// is encoded and written at once.
type uncachedStores struct {
	db   *state.DB
	open []physical.Store
}

func (s *uncachedStores) Store(name string) (physical.Store, error) {
	st, err := s.db.Store(state.StoreID{App: "app", Name: name}, state.WithCache(0))
	s.open = append(s.open, st)
	return st, err
}

// storeBytes is a store's contents.
func storeBytes(t *testing.T, db *state.DB, name string) map[string]string {
	t.Helper()
	st, err := db.Store(state.StoreID{App: "app", Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string]string{}
	if err := st.Range(nil, nil, func(k, v []byte) bool { out[string(k)] = string(v); return true }); err != nil {
		t.Fatal(err)
	}
	return out
}

// openPipeline opens a task of every sub-topology of topo, repartition
// records going to the task that reads them and sink records to sink.
func openPipeline(t *testing.T, topo *physical.Topology, stores physical.StoreProvider, sink *sinkRows) *pipeline {
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
	return pl
}

// foreignValue is a Lazy value some other writer put: its bytes only.
type foreignValue []byte

func (v foreignValue) AppendBytes(dst []byte) ([]byte, error) { return append(dst, v...), nil }
func (v foreignValue) Size() int                              { return len(v) }

// openStores hands out stores already open (the same on every call).
type openStores map[string]physical.Store

func (s openStores) Store(name string) (physical.Store, error) { return s[name], nil }

// TestAggregateReadsAnotherLazyValue: a group whose cached value is not
// the operator's own (a Lazy value of another writer) is read from its
// bytes, so the counts go on from it rather than start again.
func TestAggregateReadsAnotherLazyValue(t *testing.T) {
	plan, _ := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n, COUNT_DISTINCT(ms) AS d FROM views GROUP BY page;`,
		`CREATE TABLE other AS SELECT page, COUNT(*) AS n FROM views GROUP BY page;`)
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	views := [][2]any{{"a", 1}, {"a", 2}, {"b", 3}, {"a", 4}}
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first := &uncachedStores{db: db}
	runTopology(t, topo, first, &sinkRows{topic: "PER_PAGE"}, views[:3], 0)
	for _, st := range first.open {
		if err := errors.Join(st.Flush(), st.Close()); err != nil {
			t.Fatal(err)
		}
	}
	agg := "Aggregate-Aggregate-Materialize"
	stored := storeBytes(t, db, agg)
	stores := openStores{}
	for _, name := range []string{agg} {
		st, err := db.Store(state.StoreID{App: "app", Name: name})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for k, v := range stored {
			if err := state.PutLazy(st, []byte(k), foreignValue(v)); err != nil {
				t.Fatal(err)
			}
		}
		stores[name] = st
	}
	sink := &sinkRows{topic: "PER_PAGE"}
	runTopology(t, topo, stores, sink, views[3:], 3)
	if want := []string{`a={"N":3,"D":3}`}; !slices.Equal(sink.rows, want) {
		t.Fatalf("after another writer's value: %v, want %v", sink.rows, want)
	}
}
