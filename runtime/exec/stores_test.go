package exec

import (
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// recordingSink keeps the changelog records sent, in order.
type recordingSink struct{ keys []string }

func (s *recordingSink) sendChangelog(_ string, _ int32, key, _ []byte, _ int64) {
	s.keys = append(s.keys, string(key))
}

// TestUncachedStoreWritesThrough: a store its spec marks uncached (a
// stream–stream join window) sends each write's changelog record at the
// write, with no cache to absorb it; a cached store of the same task
// sends its record only when flushed.
func TestUncachedStoreWritesThrough(t *testing.T) {
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sub := &physical.SubTopology{Stores: []physical.StoreSpec{
		{Name: "window", Changelog: "app-window-changelog", Uncached: true},
		{Name: "agg", Changelog: "app-agg-changelog"},
	}}
	sink := &recordingSink{}
	ts := newTaskStores(db, "app", 0, sub, sink, 1<<20)
	defer ts.close()
	window, err := ts.Store("window")
	if err != nil {
		t.Fatal(err)
	}
	agg, err := ts.Store("agg")
	if err != nil {
		t.Fatal(err)
	}
	if err := agg.Put([]byte("a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := window.Put([]byte("w"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	if len(sink.keys) != 1 || sink.keys[0] != "w" {
		t.Fatalf("changelog records before the flush: %q, want only the uncached store's [w]", sink.keys)
	}
	if err := ts.flush(); err != nil {
		t.Fatal(err)
	}
	if len(sink.keys) != 2 || sink.keys[1] != "a" {
		t.Fatalf("changelog records after the flush: %q, want [w a]", sink.keys)
	}
	if v, err := window.Get([]byte("w")); err != nil || string(v) != "1" {
		t.Fatalf("uncached store reads back %q, %v", v, err)
	}
}
