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

// TestRestartStorageFailedRestartsOnlyThose: of two queries in ERROR,
// the one that failed on local state is restarted (RUNNING again), the
// one that failed for another reason stays in ERROR, and a query that
// was terminated meanwhile is not brought back.
func TestRestartStorageFailedRestartsOnlyThose(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	te.recovery = newStorageRecovery(t.TempDir()) // its loop not started: the test runs the restart
	_, err = te.ExecuteStatement(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE TABLE by_k AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;
		CREATE TABLE by_v AS SELECT v, COUNT(*) AS n FROM s GROUP BY v;
		CREATE TABLE gone AS SELECT k, SUM(v) AS n FROM s GROUP BY k;`, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := func(table string) *query {
		for _, q := range te.queries {
			if strings.Contains(q.id, table) {
				return q
			}
		}
		t.Fatalf("no query of %s", table)
		return nil
	}
	disk, bug, gone := q("BY_K"), q("BY_V"), q("GONE")
	full := &state.WriteError{Op: "commit app/s/0", Err: syscall.ENOSPC}
	disk.fail(failure(disk.id, full))
	bug.fail(failure(bug.id, errors.New("index out of range")))
	gone.fail(failure(gone.id, full))
	if _, err := te.ExecuteStatement("TERMINATE "+gone.id+";", nil); err != nil {
		t.Fatal(err)
	}
	te.restartStorageFailed()
	if s := disk.State(); s != StateRunning {
		t.Fatalf("the query that failed on local state is %s after the restart, want RUNNING", s)
	}
	if s := bug.State(); s != StateError {
		t.Fatalf("the query that failed for a bug is %s, want it left in ERROR", s)
	}
	if s := gone.State(); s != StateTerminated {
		t.Fatalf("the terminated query is %s, want it left TERMINATED", s)
	}
}
