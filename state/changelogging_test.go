package state

import (
	"slices"
	"testing"
)

// TestChangelogOrderAndTombstones: without a cache each write is logged
// after it reaches Pebble, deletes as nil values, in write order.
func TestChangelogOrderAndTombstones(t *testing.T) {
	var log eventLog
	st, err := memDB(t).Store(testID, WithChangelog(&log), WithCache(0))
	must(t, err)
	must(t, st.Put([]byte("a"), []byte("1")))
	must(t, st.Put([]byte("b"), []byte{}))
	must(t, st.Put([]byte("a"), nil))
	must(t, st.Put([]byte("never"), nil))
	want := []string{"changelog a=1", "changelog b=", "changelog a=<nil>", "changelog never=<nil>"}
	if got := log.take(); !slices.Equal(got, want) {
		t.Fatalf("changelog %q, want %q", got, want)
	}
	if v, err := st.Get([]byte("b")); err != nil || v == nil || len(v) != 0 {
		t.Fatalf("empty value read back as %#v, %v", v, err)
	}
}

// TestChangelogFailedPutNotLogged: a write Pebble refuses is not logged.
func TestChangelogFailedPutNotLogged(t *testing.T) {
	var log countingLog
	st, err := memDB(t).Store(testID, WithChangelog(&log), WithCache(0))
	must(t, err)
	must(t, st.Close())
	if err := st.Put([]byte("a"), []byte("1")); err == nil || log.n != 0 {
		t.Fatalf("put on a closed store: %v, %d records", err, log.n)
	}
}
