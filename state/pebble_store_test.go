package state

import (
	"testing"
)

// TestPebbleLayerAlone: the bottom layer reads its own batch, counts only
// real, committed inserts and deletes, and purges without a trace in the
// count.
func TestPebbleLayerAlone(t *testing.T) {
	db := memDB(t)
	ps, err := db.claim(testID)
	must(t, err)
	must(t, ps.Put([]byte("a"), []byte("1")))
	must(t, ps.Put([]byte("a"), []byte("2")))
	must(t, ps.Put([]byte("b"), []byte("1")))
	must(t, ps.Put([]byte("absent"), nil))
	if _, keys, _ := db.ApproxSize(testID); keys != 0 {
		t.Fatalf("uncommitted keys counted: %d", keys)
	}
	if v, err := ps.Get([]byte("a")); err != nil || string(v) != "2" {
		t.Fatalf("a = %q, %v from the batch", v, err)
	}
	// A scan commits the batch first (it is not indexed).
	checkRange(t, ps, map[string]string{"a": "2", "b": "1"}, "", "")
	if _, keys, _ := db.ApproxSize(testID); keys != 2 {
		t.Fatalf("keys after a scan committed the batch: %d", keys)
	}
	must(t, ps.Flush())
	must(t, ps.purge(func(k []byte) bool { return string(k) == "a" }))
	must(t, ps.Flush())
	if _, keys, _ := db.ApproxSize(testID); keys != 1 {
		t.Fatalf("keys after purge: %d", keys)
	}
	checkRange(t, ps, map[string]string{"b": "1"}, "", "")
	must(t, ps.Close())
	if err := ps.Close(); err == nil {
		t.Fatal("second close succeeded")
	}
	if _, err := ps.Get([]byte("b")); err == nil {
		t.Fatal("get on a closed store succeeded")
	}
}
