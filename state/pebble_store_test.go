package state

import (
	"fmt"
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
	must(t, ps.purge(func(k []byte) bool { return string(k) == "a" }, 0))
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

// TestPendingWritesShareTheBatch: an uncached store's write of a new key
// into the pending batch keeps no copy of its own of the key (pending
// maps the batch's copy), and every key still reads back its value
// through pending, after other writes grew the batch, and once
// committed.
func TestPendingWritesShareTheBatch(t *testing.T) {
	db := memDB(t)
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	const n = 2000
	key := func(i int) []byte { return []byte(fmt.Sprintf("key-%06d", i)) }
	for i := range n { // a first batch sizes the next one's pending map
		must(t, st.Put(key(i), []byte("old")))
	}
	must(t, st.Flush())
	keys, vals := make([][]byte, n+1), make([][]byte, n+1)
	for j := range keys {
		keys[j], vals[j] = key(n+j), []byte(fmt.Sprint("v", j))
	}
	i := 0
	allocs := testing.AllocsPerRun(n, func() {
		must(t, st.Put(keys[i], vals[i]))
		i++
	})
	if allocs > 0 {
		t.Errorf("a pending write costs %.2f allocations, want none (the batch's growth rounds away)", allocs)
	}
	want := map[string]string{}
	for j := range i {
		want[string(keys[j])] = string(vals[j])
	}
	for k, v := range want {
		checkGet(t, st, map[string]string{k: v}, k)
	}
	must(t, st.Flush())
	for k, v := range want {
		checkGet(t, st, map[string]string{k: v}, k)
	}
}
