package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// counts runs a pull query over /query-stream and returns its rows as
// key → rest-of-row strings.
func counts(t *testing.T, n *node, sql string) map[string]string {
	out := map[string]string{}
	for _, row := range mustPull(t, n, sql) {
		out[fmt.Sprint(row[0])] = fmt.Sprint(row[1:]...)
	}
	return out
}

// mustPull runs a pull query over /query-stream (pullRows) and returns
// its rows, failing the test on an error.
func mustPull(t *testing.T, n *node, sql string) [][]any {
	t.Helper()
	rows, err := pullRows(n, sql)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// eventually retries check until it passes or 30 s are up.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	eventuallyWithin(t, what, 30*time.Second, check)
}

// eventuallyWithin retries check until it passes or d is up.
func eventuallyWithin(t *testing.T, what string, d time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestAggregationSurvivesKillAndLostState runs issue 4's example through
// the binary: the same topic as a table (latest value per key) and as a
// stream (every event); GROUP BY on both; pull queries over HTTP. The
// server is killed with SIGKILL once the first records are committed and
// restarted; then its local state directory is deleted and the stores are
// rebuilt from their changelog topics. Counts stay exact.
func TestAggregationSurvivesKillAndLostState(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE TABLE customers (id VARCHAR PRIMARY KEY, tier VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=4);
	CREATE STREAM customer_events (id VARCHAR KEY, tier VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON');
	CREATE TABLE events_per_customer AS SELECT id, COUNT(*) AS n FROM customer_events GROUP BY id EMIT CHANGES;
	CREATE TABLE customers_per_tier AS SELECT tier, COUNT(*) AS n FROM customers GROUP BY tier EMIT CHANGES;`)
	produce(t, n.Kafka, "customers", "c1", `{"TIER":"bronze"}`, "c2", `{"TIER":"silver"}`, "c1", `{"TIER":"gold"}`)

	want := map[string]string{"c1": "2", "c2": "1"}
	eventually(t, "stream counts", func() error {
		return same(counts(t, n, "SELECT * FROM events_per_customer;"), want)
	})
	eventually(t, "table counts", func() error {
		return same(counts(t, n, "SELECT * FROM customers_per_tier;"),
			map[string]string{"bronze": "0", "silver": "1", "gold": "1"})
	})
	awaitQueriesCommitted(t, n.Kafka, "customers")

	n.kill()
	n.start()
	produce(t, n.Kafka, "customers", "c2", `{"TIER":"gold"}`)
	eventually(t, "counts after SIGKILL", func() error {
		return same(counts(t, n, "SELECT * FROM events_per_customer WHERE id = 'c2';"), map[string]string{"c2": "2"})
	})

	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	produce(t, n.Kafka, "customers", "c1", `{"TIER":"silver"}`)
	eventually(t, "counts after losing local state", func() error {
		return same(counts(t, n, "SELECT * FROM events_per_customer;"), map[string]string{"c1": "3", "c2": "2"})
	})
	eventually(t, "table counts after losing local state", func() error {
		return same(counts(t, n, "SELECT * FROM customers_per_tier;"),
			map[string]string{"bronze": "0", "silver": "1", "gold": "1"})
	})
	if !strings.Contains(n.Logs(), "restored store") {
		t.Fatalf("no restoration logged:\n%s", n.Logs())
	}
}

func same(got, want map[string]string) error {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("got %v, want %v", got, want)
	}
	return nil
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sqlstream.properties")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
