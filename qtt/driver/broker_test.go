package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestAwaitCaughtUp: a query whose consumer group has not formed yet
// (GROUP_ID_NOT_FOUND) is waited for; one that never forms it is a clear
// error once the variant's time is up, not empty outputs; a failed query
// and any other failure of Quiesce are returned at once.
func TestAwaitCaughtUp(t *testing.T) {
	notFormed := fmt.Errorf("fetching offsets: %w", kerr.GroupIDNotFound)
	calls := 0
	formsOnThird := func(context.Context) error {
		if calls++; calls < 3 {
			return notFormed
		}
		return nil
	}
	if err := awaitCaughtUp(context.Background(), formsOnThird); err != nil || calls != 3 {
		t.Fatalf("group forming on the third ask: err %v after %d calls, want nil after 3", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	never := func(context.Context) error { cancel(); return notFormed }
	err := awaitCaughtUp(ctx, never)
	if !errors.Is(err, kerr.GroupIDNotFound) || !strings.Contains(err.Error(), "consumer group had not formed") {
		t.Fatalf("a group that never forms: got %v", err)
	}

	calls = 0
	failed := &runtime.QueryFailedError{ID: "CSAS_X_0", Msg: "bad timestamp"}
	failing := func(context.Context) error { calls++; return fmt.Errorf("quiesce: %w", failed) }
	if err := awaitCaughtUp(context.Background(), failing); !errors.Is(err, failed) || calls != 1 || strings.Contains(err.Error(), "did not catch up") {
		t.Fatalf("a failed query: got %v after %d calls, want its failure at once, as it is", err, calls)
	}

	calls = 0
	broken := func(context.Context) error { calls++; return kerr.NotCoordinator }
	if err := awaitCaughtUp(context.Background(), broken); !errors.Is(err, kerr.NotCoordinator) || calls != 1 {
		t.Fatalf("another error: got %v after %d calls, want NOT_COORDINATOR at once", err, calls)
	}
}

// TestBrokerTopicsListInternalTopics: over a broker, the topics a test's
// post.topics checks include the queries' internal topics (ksqlDB's
// `_confluent-ksql-…` names, as the in-memory driver lists them), not the
// broker's own, the command topic or the processing log.
func TestBrokerTopicsListInternalTopics(t *testing.T) {
	d, err := newBroker(nil, nil, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, stmt := range []string{
		`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);`,
		`CREATE TABLE t AS SELECT v, COUNT(*) AS n FROM s GROUP BY v;`,
	} {
		if err := d.Execute(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	got := map[string]int32{}
	for _, ti := range d.Topics() {
		got[ti.Name] = ti.Partitions
	}
	const app = "_confluent-ksql-" + ServiceID + "query_CTAS_T_0"
	for _, want := range []string{"s", "T", app + "-Aggregate-GroupBy-repartition", app + "-Aggregate-Aggregate-Materialize-changelog"} {
		if got[want] != 2 {
			t.Errorf("topic %s listed with %d partitions, want 2 (listed: %v)", want, got[want], got)
		}
	}
	for name := range got {
		if strings.HasPrefix(name, "__") || strings.HasSuffix(name, "_command_topic") || name == d.eng.ProcessingLogTopic() {
			t.Errorf("topic %s of the broker or the engine listed as the test's", name)
		}
	}
}
