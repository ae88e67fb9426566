package runtime

import (
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/recovery"
	"github.com/sqlstream/sqlstream/state"
)

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
	te.recovery = recovery.New(t.TempDir()) // its loop not started: the test runs the restart
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
	disk.fail(exec.Failure(disk.id, full))
	bug.fail(exec.Failure(bug.id, errors.New("index out of range")))
	gone.fail(exec.Failure(gone.id, full))
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
