package state

import (
	"fmt"
	"testing"
)

// TestReadCommitted checks that readers see flushed data only, while the
// partition's owner keeps writing.
func TestReadCommitted(t *testing.T) {
	db, err := OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := StoreID{App: "app", Name: "s", Partition: 0}
	s, err := db.Store(id, WithCache(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		if err := s.Put([]byte(k), []byte("v"+k)); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := db.GetCommitted(id, []byte("a")); v != nil {
		t.Fatalf("unflushed value visible: %q", v)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]byte("d"), []byte("vd")); err != nil {
		t.Fatal(err)
	}
	var got string
	err = db.ReadCommitted(id, []byte("b"), nil, func(k, v []byte) bool {
		got += fmt.Sprintf("%s=%s ", k, v)
		return true
	})
	if err != nil || got != "b=vb c=vc " {
		t.Fatalf("read %q, %v", got, err)
	}
	if v, _ := db.GetCommitted(id, []byte("a")); string(v) != "va" {
		t.Fatalf("get a: %q", v)
	}
	if v, _ := db.GetCommitted(StoreID{App: "none", Name: "s"}, []byte("a")); v != nil {
		t.Fatalf("unknown partition: %q", v)
	}
}
