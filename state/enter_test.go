package state

import "testing"

// TestStoreCallsAllocateNoExit: entering and leaving the Pebble layer for
// a call (its lock, the DB's shared lock) allocates nothing: a read of a
// key the filter rules out costs no allocation at all, a write of a key
// known to exist only the pending map's copy of the key.
func TestStoreCallsAllocateNoExit(t *testing.T) {
	db := memDB(t)
	s, err := db.Store(testID, WithCache(0))
	must(t, err)
	must(t, s.Put([]byte("k"), []byte("v")))
	ps := bottom(t, s)
	if n := testing.AllocsPerRun(100, func() { must(t, ps.putKnown([]byte("k"), []byte("v2"), present)) }); n > 1 {
		t.Errorf("a put of a known key allocates %.0f times, want at most 1", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		if v, err := ps.Get([]byte("never")); err != nil || v != nil {
			t.Fatalf("%q, %v", v, err)
		}
	}); n != 0 {
		t.Errorf("a read of a key never written allocates %.0f times, want 0", n)
	}
}
