package state

import (
	"fmt"
	"testing"
)

// keyLog records the keys a changelog was sent, in order.
type keyLog struct{ keys []string }

func (l *keyLog) Send(key, value []byte, _ int64) { l.keys = append(l.keys, string(key)) }

// TestWriteCachedLogsWithoutCommit: WriteCached sends each dirty key to
// the changelog once, least recently written first, does not commit them
// (a Close drops the last write-back's writes, as after a crash; the
// next write-back commits the one before, early), keeps the entries
// clean (a second call and the next Flush send nothing more), and the
// writes stay readable after the cache lets them go.
func TestWriteCachedLogsWithoutCommit(t *testing.T) {
	db := memDB(t)
	var log keyLog
	st, err := db.Store(testID, WithCache(1<<20), WithChangelog(&log))
	must(t, err)
	for i := range 30 {
		must(t, st.Put(fmt.Appendf(nil, "k%d", i%3), fmt.Appendf(nil, "%d", i)))
	}
	if len(log.keys) != 0 {
		t.Fatalf("cache sent %v before WriteCached", log.keys)
	}
	must(t, WriteCached(st))
	if got := fmt.Sprint(log.keys); got != "[k0 k1 k2]" {
		t.Fatalf("WriteCached sent %s, want [k0 k1 k2]", got)
	}
	must(t, WriteCached(st))
	must(t, st.Put([]byte("k1"), nil))
	must(t, WriteCached(st))
	if got := fmt.Sprint(log.keys); got != "[k0 k1 k2 k1]" {
		t.Fatalf("after a delete WriteCached sent %s, want [k0 k1 k2 k1]", got)
	}
	// The delete left the cache: it is read from the uncommitted batch.
	if v, err := st.Get([]byte("k1")); err != nil || v != nil {
		t.Fatalf("k1 after the delete = %q, %v", v, err)
	}
	must(t, st.Put([]byte("k9"), []byte("9")))
	must(t, WriteCached(st))
	must(t, st.Close())

	st, err = db.Store(testID, WithCache(1<<20), WithChangelog(&log))
	must(t, err)
	if v, err := st.Get([]byte("k9")); err != nil || v != nil {
		t.Fatalf("k9 after Close without Flush = %q, %v; WriteCached must not commit its writes", v, err)
	}
	if v, err := st.Get([]byte("k0")); err != nil || string(v) != "27" {
		t.Fatalf("k0 after Close without Flush = %q, %v, want 27 (committed early by the next write-back)", v, err)
	}
	must(t, st.Close())
}

// TestWriteCachedThenEvicted: an entry written down by WriteCached and
// then evicted clean is read back from the uncommitted batch, and the
// commit keeps it.
func TestWriteCachedThenEvicted(t *testing.T) {
	db := memDB(t)
	var log keyLog
	st, err := db.Store(testID, WithCache(200), WithChangelog(&log))
	must(t, err)
	must(t, st.Put([]byte("a"), []byte("1")))
	must(t, WriteCached(st))
	for i := range 10 { // push a out of the 200-byte cache
		must(t, st.Put(fmt.Appendf(nil, "z%d", i), []byte("v")))
	}
	if v, err := st.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("a after eviction = %q, %v, want 1", v, err)
	}
	must(t, st.Flush())
	must(t, st.Close())
	st, err = db.Store(testID)
	must(t, err)
	defer st.Close()
	if v, err := st.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("a after the commit = %q, %v, want 1", v, err)
	}
}

// TestWriteCachedWithoutCache: a store without a cache has nothing to
// write down.
func TestWriteCachedWithoutCache(t *testing.T) {
	var log keyLog
	st, err := memDB(t).Store(testID, WithCache(0), WithChangelog(&log))
	must(t, err)
	defer st.Close()
	must(t, st.Put([]byte("a"), []byte("1")))
	must(t, WriteCached(st))
	if got := fmt.Sprint(log.keys); got != "[a]" {
		t.Fatalf("sent %s, want [a] (at the put)", got)
	}
}

// TestWriteCachedHidesItsWrites: a write-back leaves the Pebble layer's
// pending map empty (its batch hidden); a read the key filter answers
// leaves the batch uncommitted, a read of a key the write-back wrote and
// the cache let go commits it early and finds the value; a blind put of
// such a key in the next write-back is counted once; the commit keeps
// every value and the key count.
func TestWriteCachedHidesItsWrites(t *testing.T) {
	db := memDB(t)
	var log keyLog
	st, err := db.Store(testID, WithCache(200), WithChangelog(&log))
	must(t, err)
	p := bottom(t, st)
	must(t, st.Put([]byte("a"), []byte("1")))
	must(t, WriteCached(st))
	if len(p.pending) != 0 || !p.hidden {
		t.Fatalf("after the write-back pending holds %d writes (hidden %v), want none, hidden", len(p.pending), p.hidden)
	}
	if v, err := st.Get([]byte("never")); err != nil || v != nil || p.batch == nil {
		t.Fatalf("a key never written = %q, %v; committed early %v, want not", v, err, p.batch == nil)
	}
	for i := range 10 { // push a out of the 200-byte cache, written back too
		must(t, st.Put(fmt.Appendf(nil, "z%d", i), []byte("v")))
	}
	must(t, WriteCached(st))
	if v, err := st.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("a after eviction = %q, %v, want 1", v, err)
	}
	if p.hidden {
		t.Fatal("reading a hidden key left the batch hidden, want it committed")
	}
	for i := range 10 { // a out again, then put blind: its presence unknown to the cache
		must(t, st.Put(fmt.Appendf(nil, "y%d", i), []byte("v")))
	}
	must(t, WriteCached(st))
	must(t, st.Put([]byte("a"), []byte("2")))
	must(t, WriteCached(st))
	must(t, st.Flush())
	must(t, st.Close())
	if _, keys, err := db.ApproxSize(testID); err != nil || keys != 21 {
		t.Fatalf("key count after the commit = %d, %v, want 21 (a, y0…y9, z0…z9)", keys, err)
	}
	st, err = db.Store(testID)
	must(t, err)
	defer st.Close()
	if v, err := st.Get([]byte("a")); err != nil || string(v) != "2" {
		t.Fatalf("a after the commit = %q, %v, want 2", v, err)
	}
}
