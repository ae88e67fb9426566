package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// TestProbeWrites: the probe writes, syncs and removes its file in a
// directory that takes writes, and says which directory refused it.
func TestProbeWrites(t *testing.T) {
	dir := t.TempDir()
	if err := probeWrites(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, storageProbeName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the probe file is left behind: %v", err)
	}
	gone := filepath.Join(dir, "gone")
	if err := probeWrites(gone); err == nil || !strings.Contains(err.Error(), "probe") {
		t.Fatalf("probe of a missing directory = %v, want an error", err)
	}
}

// TestStorageFailedRecordsOnlyStorageFailures: a query that went to
// ERROR for a refused write is recorded for the restart and wakes the
// loop; one that failed for any other reason is not.
func TestStorageFailedRecordsOnlyStorageFailures(t *testing.T) {
	e := &Engine{recovery: newStorageRecovery(t.TempDir())}
	full := &state.WriteError{Op: "commit app/s/0", Err: syscall.ENOSPC}
	e.storageFailed(&query{eng: e, id: "Q_DISK"}, failure("Q_DISK", full))
	e.storageFailed(&query{eng: e, id: "Q_BUG"}, failure("Q_BUG", errors.New("index out of range")))
	e.storageFailed(&query{eng: e, id: "Q_USER"}, failure("Q_USER", &physical.UserError{Err: errors.New("bad timestamp"), Remedy: "fix it"}))
	if got := e.recovery.take(); !slices.Equal(got, []string{"Q_DISK"}) {
		t.Fatalf("recorded %v, want only the query that failed on the disk", got)
	}
	select {
	case <-e.recovery.wake:
	default:
		t.Fatal("the recovery loop was not woken")
	}
	if got := e.recovery.take(); len(got) != 0 {
		t.Fatalf("take forgets what it returned; still %v", got)
	}
	(&Engine{}).storageFailed(&query{id: "Q"}, full) // no recovery loop: nothing to record
}
