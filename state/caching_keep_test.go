package state

import "testing"

// countingStore counts the reads and writes that reach it.
type countingStore struct {
	Store
	gets, puts int
}

func (c *countingStore) Get(k []byte) ([]byte, error) { c.gets++; return c.Store.Get(k) }
func (c *countingStore) Put(k, v []byte) error        { c.puts++; return c.Store.Put(k, v) }

// TestCacheKeepsEntriesAcrossFlush checks Kafka Streams' cache behaviour:
// a flush writes dirty entries down once and keeps them, so hot keys are
// not read from below again and an unchanged entry is not written twice.
func TestCacheKeepsEntriesAcrossFlush(t *testing.T) {
	db, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ps, err := db.claim(StoreID{App: "a", Name: "s"})
	if err != nil {
		t.Fatal(err)
	}
	below := &countingStore{Store: ps}
	c := newCachingStore(below, 1<<20, nil)
	for i := 0; i < 3; i++ {
		v, err := c.Get([]byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Put([]byte("k"), append(v, 'x')); err != nil {
			t.Fatal(err)
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if below.gets != 1 || below.puts != 3 {
		t.Fatalf("below saw %d gets and %d puts, want 1 and 3", below.gets, below.puts)
	}
	if err := c.Flush(); err != nil || below.puts != 3 {
		t.Fatalf("a clean flush wrote again (%d puts, %v)", below.puts, err)
	}
	if v, _ := c.Get([]byte("k")); string(v) != "xxx" {
		t.Fatalf("value %q", v)
	}
}
