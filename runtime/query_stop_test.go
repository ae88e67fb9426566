package runtime

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// stuckStopCluster is a cluster whose persistent queries take until
// release is closed to stop: a query stuck in a huge window or a slow
// processor.
type stuckStopCluster struct {
	exec.Cluster
	release chan struct{}
}

func (c *stuckStopCluster) Start(q *exec.Query) (exec.Runner, error) {
	r, err := c.Cluster.Start(q)
	if err != nil {
		return nil, err
	}
	return exec.RunnerFunc(func() error { <-c.release; return r.Stop() }), nil
}

func stuckEngine(t *testing.T) (*TestEngine, chan struct{}) {
	t.Helper()
	te, err := NewTestEngine(map[string]string{props.ShutdownTimeout: "100"})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	te.cluster = &stuckStopCluster{Cluster: te.mem, release: release}
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
		te.Close()
	})
	mustRun(t, te, `CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE STREAM c AS SELECT * FROM s;`)
	return te, release
}

func mustRun(t *testing.T, te *TestEngine, sql string) []api.Entity {
	t.Helper()
	ents, err := te.ExecuteStatement(sql, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return ents
}

// TestTerminateDoesNotHoldEngineLock is issue 9.4: a query whose shutdown
// blocks does not wedge the engine. TERMINATE answers after the shutdown
// bound, the query is gone from SHOW QUERIES at once, other statements run
// meanwhile, and the healthcheck stays healthy.
func TestTerminateDoesNotHoldEngineLock(t *testing.T) {
	te, release := stuckEngine(t)
	done := make(chan error, 1)
	go func() {
		_, err := te.ExecuteStatement("TERMINATE CSAS_C_1;", nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("TERMINATE: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("TERMINATE of a query that does not stop did not answer within 10s (bound 100ms)")
	}
	ents := mustRun(t, te, "SHOW QUERIES;")
	if q := ents[0].(api.QueriesList).Queries; len(q) != 0 {
		t.Errorf("SHOW QUERIES after TERMINATE lists %v", q)
	}
	mustRun(t, te, "CREATE STREAM d AS SELECT * FROM s;")
	if h := te.Health(context.Background()); !h.IsHealthy {
		t.Errorf("healthcheck while a query is still stopping: %+v", h)
	}
	close(release)
}

// TestDropOwnerStopsOutsideLock: DROP of a stream whose query does not
// stop answers too, and its name can be created again.
func TestDropOwnerStopsOutsideLock(t *testing.T) {
	te, _ := stuckEngine(t)
	start := time.Now()
	mustRun(t, te, "DROP STREAM c;")
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("DROP took %v with a 100ms shutdown bound", d)
	}
	mustRun(t, te, "CREATE STREAM c AS SELECT * FROM s;")
}

// TestHealthReportsWedgedEngine: when the engine lock is not free within
// the bound, /healthcheck says so in ksqlDB's shape (commandRunner and
// the whole false), and recovers once the lock is free.
func TestHealthReportsWedgedEngine(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	te.healthWait = 50 * time.Millisecond
	te.mu.Lock()
	h := te.Health(context.Background())
	te.mu.Unlock()
	if h.IsHealthy || h.Details.CommandRunner.IsHealthy || !h.Details.Kafka.IsHealthy {
		t.Errorf("healthcheck with the engine lock held: %+v, want unhealthy command runner", h)
	}
	if h := te.Health(context.Background()); !h.IsHealthy || !h.Details.CommandRunner.IsHealthy {
		t.Errorf("healthcheck with the engine lock free: %+v", h)
	}
}

// TestTerminateTransientKeepsCase is issue 9.17: TERMINATE with a
// transient query id, upper-cased by the parser as any unquoted name,
// finds the query and answers its exact id.
func TestTerminateTransientKeepsCase(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, `CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	rs, err := te.Query(context.Background(), "SELECT * FROM s EMIT CHANGES;", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := rs.Header().QueryID
	if !strings.HasPrefix(id, "transient_") {
		t.Fatalf("push query id %q", id)
	}
	ents := mustRun(t, te, "TERMINATE "+id+";")
	if got := ents[0].(api.TerminateQueryEntity); got.QueryID != id || !got.WasTerminated {
		t.Errorf("TERMINATE %s answered %+v", id, got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := rs.Next(ctx); err == nil || ctx.Err() != nil {
		t.Errorf("the push query still runs after TERMINATE: %v", err)
	}
}

// TestCloseWithStuckQuery: shutdown waits for a query that does not stop
// only up to the bound, and says so instead of closing state under it.
func TestCloseWithStuckQuery(t *testing.T) {
	te, err := NewTestEngine(map[string]string{props.ShutdownTimeout: "100"})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	te.cluster = &stuckStopCluster{Cluster: te.mem, release: release}
	mustRun(t, te, `CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE STREAM c AS SELECT * FROM s;`)
	start := time.Now()
	err = te.Close()
	if err == nil || !strings.Contains(err.Error(), "did not stop within 100ms") {
		t.Errorf("Close with a stuck query: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a 100ms bound", d)
	}
}
