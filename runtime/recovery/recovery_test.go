package recovery

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
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
	r := New(t.TempDir())
	full := &state.WriteError{Op: "commit app/s/0", Err: syscall.ENOSPC}
	r.Failed("Q_DISK", exec.Failure("Q_DISK", full))
	r.Failed("Q_BUG", exec.Failure("Q_BUG", errors.New("index out of range")))
	r.Failed("Q_USER", exec.Failure("Q_USER", &physical.UserError{Err: errors.New("bad timestamp"), Remedy: "fix it"}))
	if got := r.Take(); !slices.Equal(got, []string{"Q_DISK"}) {
		t.Fatalf("recorded %v, want only the query that failed on the disk", got)
	}
	select {
	case <-r.wake:
	default:
		t.Fatal("the recovery loop was not woken")
	}
	if got := r.Take(); len(got) != 0 {
		t.Fatalf("take forgets what it returned; still %v", got)
	}
	var none *Recovery // no recovery loop: nothing to record
	none.Failed("Q", full)
	if got := none.Take(); got != nil {
		t.Fatalf("a nil recovery recorded %v", got)
	}
}
