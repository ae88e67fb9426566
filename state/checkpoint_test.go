package state

import "testing"

func TestCheckpointRules(t *testing.T) {
	db := memDB(t)
	if _, ok := db.Checkpointed(testID); ok {
		t.Fatal("a fresh store has a checkpoint")
	}
	if err := db.Checkpoint(testID, -1); err == nil {
		t.Fatal("a negative offset was accepted")
	}
	must(t, db.Checkpoint(testID, 10))
	must(t, db.Checkpoint(testID, 12))
	if off, ok := db.Checkpointed(testID); !ok || off != 12 {
		t.Fatalf("checkpoint %d %v", off, ok)
	}
	must(t, db.Wipe(testID))
	if _, ok := db.Checkpointed(testID); ok {
		t.Fatal("wipe kept the checkpoint")
	}
}

// TestCheckpointStagedUntilFlush: with writes pending below the cache the
// checkpoint waits for Flush, and Close drops it with them.
func TestCheckpointStagedUntilFlush(t *testing.T) {
	db := memDB(t)
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	must(t, st.Put([]byte("k"), []byte("v")))
	must(t, db.Checkpoint(testID, 1))
	if _, ok := db.Checkpointed(testID); ok {
		t.Fatal("staged checkpoint visible before flush")
	}
	must(t, st.Flush())
	if off, ok := db.Checkpointed(testID); !ok || off != 1 {
		t.Fatalf("checkpoint after flush %d %v", off, ok)
	}
	must(t, st.Put([]byte("k"), []byte("v2")))
	must(t, db.Checkpoint(testID, 2))
	must(t, st.Close())
	if off, _ := db.Checkpointed(testID); off != 1 {
		t.Fatalf("checkpoint after close without flush %d, want 1", off)
	}
}
