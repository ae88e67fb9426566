package physical_test

import (
	"bytes"
	"fmt"
	"slices"
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
// is a sketch), the others small ones.
func TestAggregateCachedStateMatchesStored(t *testing.T) {
	plan, _ := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n, COUNT_DISTINCT(ms) AS d, MAX(ms) AS hi FROM views GROUP BY page;`,
		`CREATE TABLE other AS SELECT page, COUNT(*) AS n FROM views GROUP BY page;`)
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	views := make([][2]any, 3000)
	for i := range views {
		views[i] = [2]any{fmt.Sprint("p", i%2), i * 7 % 5000}
	}
	plain, plainStores := &sinkRows{topic: "PER_PAGE"}, mapStores{}
	runTopology(t, topo, plainStores, plain, views, 0)

	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cached := &sinkRows{topic: "PER_PAGE"}
	stores := &loggedStores{db: db, logs: changelogs{}}
	for half := range 2 {
		pl := openPipeline(t, topo, stores, cached)
		for i := half * 1500; i < (half+1)*1500; i++ {
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
	if !slices.Equal(cached.rows, plain.rows) {
		t.Fatalf("outputs differ: %d cached, %d plain; first cached %v, plain %v", len(cached.rows), len(plain.rows),
			cached.rows[:min(3, len(cached.rows))], plain.rows[:min(3, len(plain.rows))])
	}
	agg := "Aggregate-Aggregate-Materialize"
	want := plainStores[agg]
	if len(want) != 2 {
		t.Fatalf("plain store holds %d groups, want 2", len(want))
	}
	last := map[string][]byte{}
	for _, r := range stores.logs[agg] {
		last[string(r.key)] = r.value
	}
	st, err := db.Store(state.StoreID{App: "app", Name: agg})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for k, v := range want {
		got, err := st.Get([]byte(k))
		if err != nil || !bytes.Equal(got, v) || !bytes.Equal(last[k], v) {
			t.Errorf("group %q: stored %d bytes, last changelog record %d bytes, want the plain store's %d bytes (%v)",
				k, len(got), len(last[k]), len(v), err)
		}
	}
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
