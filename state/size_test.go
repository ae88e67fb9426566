package state

import (
	"fmt"
	"testing"
)

// TestApproxSize: bytes grow once data reaches tables; unknown ids are 0.
func TestApproxSize(t *testing.T) {
	db := memDB(t)
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	for i := range 1000 {
		must(t, st.Put(fmt.Appendf(nil, "key%04d", i), make([]byte, 100)))
	}
	must(t, st.Flush())
	must(t, db.pdb.Flush())
	size, keys, err := db.ApproxSize(testID)
	if err != nil || keys != 1000 || size < 1000 {
		t.Fatalf("size %d keys %d err %v", size, keys, err)
	}
	if size, keys, err := db.ApproxSize(StoreID{App: "no", Name: "such"}); size != 0 || keys != 0 || err != nil {
		t.Fatalf("unknown store: %d %d %v", size, keys, err)
	}
}
