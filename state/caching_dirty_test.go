package state

import (
	"fmt"
	"slices"
	"testing"
)

// orderStore records the keys written to it, in order.
type orderStore struct {
	Store
	puts []string
}

func (o *orderStore) Put(k, v []byte) error {
	o.puts = append(o.puts, string(k))
	return o.Store.Put(k, v)
}

// TestCacheFlushWalksDirtyTail: a flush writes down exactly the entries
// written since the last one, least recently written first, though clean
// entries (read-fills, entries kept from earlier flushes) sit between
// them in the LRU ring and a delete and an eviction drop dirty ones; the
// dirty count it walks by matches the entries after every step.
func TestCacheFlushWalksDirtyTail(t *testing.T) {
	db, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ps, err := db.claim(StoreID{App: "a", Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	below := &orderStore{Store: ps}
	c := newCachingStore(below, 1<<20, nil)
	for i := range 20 {
		must(t, c.Put(fmt.Appendf(nil, "k%02d", i), []byte("v")))
	}
	must(t, c.Flush())
	checkDirtyCount(t, c)
	below.puts = nil
	var want []string
	for i := range 10 {
		// A read-fill of a key only below, then writes of kept keys.
		must(t, below.Store.Put(fmt.Appendf(nil, "b%02d", i), []byte("v")))
		if _, err := c.Get(fmt.Appendf(nil, "b%02d", i)); err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("k%02d", (i*7)%20)
		must(t, c.Put([]byte(k), []byte("w")))
		want = append(slices.DeleteFunc(want, func(w string) bool { return w == k }), k)
		checkDirtyCount(t, c)
	}
	must(t, c.Put([]byte("k07"), []byte("x"))) // rewritten: moves last
	want = append(slices.DeleteFunc(want, func(w string) bool { return w == "k07" }), "k07")
	must(t, c.Flush())
	checkDirtyCount(t, c)
	if !slices.Equal(below.puts, want) {
		t.Fatalf("flush wrote %v, want %v", below.puts, want)
	}
	below.puts = nil
	must(t, c.Flush())
	if len(below.puts) != 0 {
		t.Fatalf("a clean flush wrote %v", below.puts)
	}
	// An eviction of a dirty entry drops it from the count.
	small := newCachingStore(below, 1, nil)
	must(t, small.Put([]byte("e1"), []byte("v")))
	must(t, small.Put([]byte("e2"), []byte("v")))
	checkDirtyCount(t, small)
}

// checkDirtyCount fails unless c's dirty count is its dirty entries'.
func checkDirtyCount(t *testing.T, c *cachingStore) {
	t.Helper()
	n := 0
	for e := c.front(); e != nil; e = c.after(e) {
		if e.dirty {
			n++
		}
	}
	if n != c.dirty {
		t.Fatalf("dirty count %d, %d entries dirty", c.dirty, n)
	}
}
