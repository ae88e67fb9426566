package physical_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// uncachedLogged opens a task's stores without a cache and with
// changelogs: every update is encoded and logged at once.
type uncachedLogged struct{ loggedStores }

func (s *uncachedLogged) Store(name string) (physical.Store, error) {
	st, err := s.db.Store(state.StoreID{App: "app", Name: name},
		append(s.layout(name), state.WithChangelog(storeLog{s.logs, name}), state.WithCache(0))...)
	s.open = append(s.open, st)
	return st, err
}

// TestFinalBufferCachedMatchesStored: the EMIT FINAL buffer keeps each
// window's result as values in the cache (encoded at the write-down, not
// per update); against a run without a cache, where every update is
// encoded and logged at once, the rows are the same, the buffer holds
// the same bytes halfway (windows still open) and at the end, and each
// buffer key's last changelog record is the same — across commits every
// 7 records and a restart halfway. Hopping windows, so a record updates
// two windows.
func TestFinalBufferCachedMatchesStored(t *testing.T) {
	plan, _ := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n, MAX(ms) AS hi FROM views
		   WINDOW HOPPING (SIZE 100 SECONDS, ADVANCE BY 50 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY page EMIT FINAL;`,
		`CREATE TABLE other AS SELECT page, COUNT(*) AS n FROM views GROUP BY page;`)
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	const buffer = "Aggregate-Aggregate-Suppress"
	run := func(stores interface {
		physical.StoreProvider
		flush(t *testing.T)
		close(t *testing.T)
	}, db *state.DB) (rows []string, half, end map[string]string) {
		sink := &sinkRows{topic: "PER_PAGE"}
		for h := range 2 {
			pl := openPipeline(t, topo, stores, sink)
			for i := h * 1000; i < (h+1)*1000; i++ {
				r := &physical.InRecord{Topic: "views", Key: []byte(fmt.Sprint("u", i)), Offset: int64(i),
					Value: []byte(fmt.Sprintf(`{"PAGE":"p%d","MS":%d}`, i%5, i*7%3000)), Timestamp: int64(1000 * i)}
				if err := pl.process(r); err != nil {
					t.Fatal(err)
				}
				if i%7 == 6 {
					stores.flush(t)
				}
			}
			stores.close(t) // a restart: the caches are gone
			if h == 0 {
				half = storeBytes(t, db, buffer)
			}
		}
		return sink.rows, half, storeBytes(t, db, buffer)
	}
	plainDB, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer plainDB.Close()
	plainStores := &uncachedLogged{loggedStores{db: plainDB, logs: changelogs{}}}
	plainRows, plainHalf, plainEnd := run(plainStores, plainDB)

	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stores := &flushable{loggedStores{db: db, logs: changelogs{}}}
	rows, half, end := run(stores, db)

	if len(plainRows) < 10 {
		t.Fatalf("%d final rows, want windows closing all along", len(plainRows))
	}
	if !slices.Equal(rows, plainRows) {
		t.Fatalf("rows differ: %d cached, %d uncached", len(rows), len(plainRows))
	}
	if len(plainHalf) < 2 || !maps.Equal(half, plainHalf) {
		t.Errorf("halfway the buffer holds %d entries, uncached %d, or their bytes differ", len(half), len(plainHalf))
	}
	if !maps.Equal(end, plainEnd) {
		t.Errorf("at the end the buffer holds %d entries, uncached %d, or their bytes differ", len(end), len(plainEnd))
	}
	last := func(recs []changelogRecord) map[string]string {
		m := map[string]string{}
		for _, r := range recs {
			m[string(r.key)] = string(r.value)
		}
		return m
	}
	if got, want := last(stores.logs[buffer]), last(plainStores.logs[buffer]); !maps.Equal(got, want) {
		t.Errorf("last changelog records of %d buffer keys, uncached %d, or their bytes differ", len(got), len(want))
	}
}

// flushable adds flush to loggedStores (a commit without a restart).
type flushable struct{ loggedStores }

func (s *flushable) flush(t *testing.T) {
	t.Helper()
	for _, st := range s.open {
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

func (s *uncachedLogged) flush(t *testing.T) {
	t.Helper()
	for _, st := range s.open {
		if err := st.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFinalBufferStreamTimeRecord: the EMIT FINAL buffer's stream time
// goes to its changelog as a record of its own key with an empty value
// (not a null one: that would be a tombstone) stamped with the stream
// time, and a store restored from the changelog alone (no stream time
// from the committed offsets) takes it back: a record for a window
// emitted before is late, not a second final result.
func TestFinalBufferStreamTimeRecord(t *testing.T) {
	plan, _ := upgradePlans(t,
		`CREATE TABLE per_page AS SELECT page, COUNT(*) AS n FROM views
		   WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY page EMIT FINAL;`,
		`CREATE TABLE other AS SELECT page, COUNT(*) AS n FROM views GROUP BY page;`)
	topo, err := physical.Build(plan, physical.Options{AppID: "app"})
	if err != nil {
		t.Fatal(err)
	}
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sink := &sinkRows{topic: "PER_PAGE"}
	stores := &loggedStores{db: db, logs: changelogs{}, timed: timedStores(topo)}
	feedViews(t, openPipeline(t, topo, stores, sink), 0, view{"a", 1, 1000}, view{"a", 2, 12000}) // [0,10) closes
	stores.close(t)
	var last *changelogRecord
	for i, r := range stores.logs["Aggregate-Aggregate-Suppress"] {
		if strings.HasSuffix(string(r.key), "stream-time") {
			last = &stores.logs["Aggregate-Aggregate-Suppress"][i]
		}
	}
	if last == nil || last.value == nil || len(last.value) != 0 || last.ts != 12000 {
		t.Fatalf("the buffer's last stream-time changelog record is %+v, want an empty (not null) value at 12000", last)
	}
	restored := restoredDB(t, stores)
	defer restored.Close()
	stores = &loggedStores{db: restored, logs: changelogs{}, timed: stores.timed}
	feedViews(t, openPipeline(t, topo, stores, sink), 2, view{"a", 3, 2000}, view{"a", 4, 25000}) // 2 s is late
	stores.close(t)
	if got := sinkValues(sink); fmt.Sprint(got) != `[{"N":1} {"N":1}]` {
		t.Fatalf("final windows %v, want [0,10) once (its record after the restore late) and [10,20)", got)
	}
}
