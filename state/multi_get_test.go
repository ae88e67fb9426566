package state

import (
	"fmt"
	"testing"
)

// TestGetManyCommitted: the committed values of the listed keys present,
// in key order, and nothing of another partition or of pending writes.
func TestGetManyCommitted(t *testing.T) {
	db, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := StoreID{App: "app", Name: "s", Partition: 0}
	other := StoreID{App: "app", Name: "s", Partition: 1}
	for _, sid := range []StoreID{id, other} {
		s, err := db.Store(sid, WithCache(0))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"b", "d", "f"} {
			if err := s.Put([]byte(k), []byte(fmt.Sprintf("%s%d", k, sid.Partition))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := s.Put([]byte("c"), []byte("pending")); err != nil {
			t.Fatal(err)
		}
	}
	var got string
	keys := [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("f"), []byte("g")}
	err = db.GetManyCommitted(id, keys, func(k, v []byte) bool {
		got += fmt.Sprintf("%s=%s ", k, v)
		return true
	})
	if err != nil || got != "b=b0 f=f0 " {
		t.Fatalf("got %q, %v; want b=b0 f=f0", got, err)
	}
	if err := db.GetManyCommitted(StoreID{App: "none", Name: "s"}, keys, func(k, v []byte) bool {
		t.Errorf("unknown partition has %s", k)
		return true
	}); err != nil {
		t.Fatal(err)
	}
}
