package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestPullRightAfterCTAS is issue 19.6 through the binary: a pull query
// sent the moment CREATE TABLE … AS SELECT returns answers every row of
// the records already in the source (it waits until the query's tasks are
// RUNNING and caught up), never an empty or partial table; with the wait
// shortened to 1 ms it answers either all rows or error 50302 saying the
// table is not ready, never a partial answer.
func TestPullRightAfterCTAS(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.auto.offset.reset=earliest\n"))
	n.mustKsql(`CREATE STREAM orders (id VARCHAR KEY, item VARCHAR) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=3);`)
	var kvs []string
	for i := range 30 {
		kvs = append(kvs, fmt.Sprintf("c%d", i%5), fmt.Sprintf(`{"ITEM":"i%d"}`, i))
	}
	produce(t, n.Kafka, "orders", kvs...)
	want := map[string]string{"c0": "6", "c1": "6", "c2": "6", "c3": "6", "c4": "6"}

	n.mustKsql(`CREATE TABLE orders_per_customer AS SELECT id, COUNT(*) AS n FROM orders GROUP BY id EMIT CHANGES;`)
	if err := same(counts(t, n, "SELECT * FROM orders_per_customer;"), want); err != nil {
		t.Fatalf("first pull query after the CTAS: %v", err)
	}

	n.mustKsql(`CREATE TABLE items_per_customer AS SELECT id, COUNT_DISTINCT(item) AS n FROM orders GROUP BY id EMIT CHANGES;`)
	rows, err := pullRowsWith(n, "SELECT * FROM items_per_customer;", map[string]any{"sqlstream.query.pull.ready.wait.ms": 1})
	switch {
	case err != nil && !(strings.Contains(err.Error(), ": 503 ") && strings.Contains(err.Error(), `"error_code":50302`) &&
		strings.Contains(err.Error(), "ITEMS_PER_CUSTOMER is not ready yet")):
		t.Fatalf("pull query with a 1 ms wait: %v", err)
	case err == nil:
		got := map[string]string{}
		for _, row := range rows {
			got[fmt.Sprint(row[0])] = fmt.Sprint(row[1:]...)
		}
		if err := same(got, want); err != nil {
			t.Fatalf("pull query with a 1 ms wait answered a partial table: %v", err)
		}
	}
	if err := same(counts(t, n, "SELECT * FROM items_per_customer;"), want); err != nil {
		t.Fatalf("pull query with the default wait: %v", err)
	}
}
