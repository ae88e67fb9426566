package state

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestReopenOnDisk: on a real directory, flushed data, key counts,
// checkpoints and prefixes survive a restart; unflushed data does not.
func TestReopenOnDisk(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, WithBlockCache(1<<20))
	must(t, err)
	other := StoreID{App: "app", Name: "other", Partition: 0}
	for _, id := range []StoreID{other, testID} {
		st, err := db.Store(id)
		must(t, err)
		must(t, st.Put([]byte("k"), []byte(id.Name)))
		must(t, st.Flush())
		must(t, db.Checkpoint(id, 42))
		must(t, st.Put([]byte("lost"), []byte("x")))
		must(t, st.Close())
	}
	prefixes := map[StoreID]prefix{testID: db.parts[testID].prefix, other: db.parts[other].prefix}
	must(t, db.Close())

	db, err = Open(dir)
	must(t, err)
	defer db.Close()
	if got := db.Stores(); !slices.Equal(got, []StoreID{other, testID}) {
		t.Fatalf("stores after reopen: %v", got)
	}
	for id, p := range prefixes {
		if db.parts[id].prefix != p {
			t.Errorf("%v: prefix %d, was %d", id, db.parts[id].prefix, p)
		}
		checkReopened(t, db, id)
	}
}

func checkReopened(t *testing.T, db *DB, id StoreID) {
	t.Helper()
	if off, ok := db.Checkpointed(id); !ok || off != 42 {
		t.Errorf("%v: checkpoint %d %v", id, off, ok)
	}
	if _, keys, err := db.ApproxSize(id); err != nil || keys != 1 {
		t.Errorf("%v: %d keys, %v", id, keys, err)
	}
	st, err := db.Store(id)
	must(t, err)
	defer st.Close()
	for k, want := range map[string]string{"k": id.Name, "lost": ""} {
		v, err := st.Get([]byte(k))
		if err != nil || string(v) != want {
			t.Errorf("%v: %s=%q, want %q (%v)", id, k, v, want, err)
		}
	}
}

// TestConcurrentTasks: tasks on their own goroutines share the DB while
// another goroutine checkpoints and reads sizes (run with -race).
func TestConcurrentTasks(t *testing.T) {
	db := memDB(t)
	var m Metrics
	var wg sync.WaitGroup
	for p := range int32(4) {
		id := StoreID{App: "app", Name: "s", Partition: p}
		wg.Add(2)
		go func() { defer wg.Done(); runTask(t, db, id, &m) }()
		go func() { defer wg.Done(); watchTask(t, db, id) }()
	}
	wg.Wait()
	for p := range int32(4) {
		id := StoreID{App: "app", Name: "s", Partition: p}
		if _, keys, _ := db.ApproxSize(id); keys != 50 {
			t.Errorf("%v: %d keys, want 50", id, keys)
		}
	}
	if s := m.Snapshot(); s.Puts != 4*200 || s.Flushes != 4*20 {
		t.Errorf("metrics %+v", s)
	}
}

func runTask(t *testing.T, db *DB, id StoreID, m *Metrics) {
	st, err := db.Store(id, WithCache(512), WithMetrics(m))
	if err != nil {
		t.Error(err)
		return
	}
	defer st.Close()
	for i := range 200 {
		if err := st.Put(fmt.Appendf(nil, "k%d", i%50), fmt.Appendf(nil, "%d", i)); err != nil {
			t.Error(err)
			return
		}
		if i%10 == 9 {
			must(t, st.Flush())
		}
	}
}

func watchTask(t *testing.T, db *DB, id StoreID) {
	for i := range 100 {
		if err := db.Checkpoint(id, int64(i)); err != nil {
			t.Error(err)
		}
		if _, _, err := db.ApproxSize(id); err != nil {
			t.Error(err)
		}
		db.Checkpointed(id)
		db.Stores()
	}
}

// TestClosedDB: closing the DB aborts open stores; what reaches Pebble
// afterwards fails.
func TestClosedDB(t *testing.T) {
	db, err := OpenMem()
	must(t, err)
	st, err := db.Store(testID)
	must(t, err)
	must(t, st.Put([]byte("k"), []byte("v")))
	must(t, db.Close())
	if err := st.Flush(); err == nil {
		t.Error("flush after DB close succeeded")
	}
	if _, err := db.Store(testID); err == nil {
		t.Error("store after DB close opened")
	}
	if err := db.Close(); err == nil {
		t.Error("second close succeeded")
	}
}

func TestClosedDBReads(t *testing.T) {
	db, err := OpenMem()
	must(t, err)
	must(t, db.Checkpoint(testID, 1))
	must(t, db.Close())
	if _, ok := db.Checkpointed(testID); ok {
		t.Error("checkpoint read from a closed DB")
	}
	if _, _, err := db.ApproxSize(testID); err == nil {
		t.Error("size read from a closed DB")
	}
}
