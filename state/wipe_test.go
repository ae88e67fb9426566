package state

import "testing"

// TestWipeLeavesNeighbours: wiping one partition leaves the partitions
// with the prefixes on either side intact, and a wiped id comes back empty
// under a new prefix.
func TestWipeLeavesNeighbours(t *testing.T) {
	db := memDB(t)
	ids := []StoreID{{App: "a", Name: "s", Partition: 0}, {App: "a", Name: "s", Partition: 1}, {App: "a", Name: "s", Partition: 2}}
	for _, id := range ids {
		st, err := db.Store(id)
		must(t, err)
		must(t, st.Put([]byte("k"), []byte(id.String())))
		must(t, st.Flush())
		must(t, st.Close())
		must(t, db.Checkpoint(id, 5))
	}
	old := db.parts[ids[1]].prefix
	must(t, db.Wipe(ids[1]))
	must(t, db.Wipe(StoreID{App: "never", Name: "seen"}))
	for i, id := range ids {
		st, err := db.Store(id)
		must(t, err)
		want := map[string]string{"k": id.String()}
		if i == 1 {
			want = map[string]string{}
		}
		checkRange(t, st, want, "", "")
		must(t, st.Close())
		if _, ok := db.Checkpointed(id); ok != (i != 1) {
			t.Errorf("%v: checkpoint present %v", id, ok)
		}
	}
	if p := db.parts[ids[1]].prefix; p == old {
		t.Errorf("wiped store reused prefix %d", p)
	}
}
