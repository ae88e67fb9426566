package state

import (
	"fmt"
	"testing"
)

// TestTransactionFlushReadBack: a transactional store's cache flush
// writes into the batch without mirroring it in pending, so a clean entry
// evicted between the flush and CommitTransaction is read back from the
// batch, never from an older pending write of the same key nor from the
// committed data; a commit after it holds the flushed values.
func TestTransactionFlushReadBack(t *testing.T) {
	db := memDB(t)
	var log countingLog
	st, err := db.Store(testID, Transactional(), WithCache(2<<10), WithChangelog(&log))
	must(t, err)
	must(t, st.Put([]byte("hot"), []byte("committed")))
	must(t, st.Flush())
	must(t, db.CommitTransaction(testID, 1))

	must(t, st.Put([]byte("hot"), []byte("evicted")))
	fill(t, st, "a", 100) // evicts hot: its write goes down tracked
	must(t, st.Put([]byte("hot"), []byte("flushed")))
	must(t, st.Flush())   // hot goes down untracked, over the tracked write
	fill(t, st, "b", 100) // evicts the clean entry
	for _, k := range []string{"hot", "a000", "b099"} {
		v, err := st.Get([]byte(k))
		must(t, err)
		if want := map[string]string{"hot": "flushed", "a000": "a-0", "b099": "b-99"}[k]; string(v) != want {
			t.Fatalf("get %s after the flush = %q, want %q", k, v, want)
		}
	}
	if v, err := st.Get([]byte("never")); err != nil || v != nil {
		t.Fatalf("get of a key never written = %q %v, want nothing", v, err)
	}
	must(t, st.Flush())
	must(t, db.CommitTransaction(testID, 2))
	must(t, st.Close())

	st, err = db.Store(testID, Transactional())
	must(t, err)
	defer st.Close()
	if v, err := st.Get([]byte("hot")); err != nil || string(v) != "flushed" {
		t.Fatalf("get hot after the commit = %q %v, want flushed", v, err)
	}
}

// fill puts n keys prefix000… with values prefix-i.
func fill(t *testing.T, st Store, prefix string, n int) {
	t.Helper()
	for i := range n {
		must(t, st.Put(fmt.Appendf(nil, "%s%03d", prefix, i), fmt.Appendf(nil, "%s-%d", prefix, i)))
	}
}
