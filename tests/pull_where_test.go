package tests

import (
	"fmt"
	"strings"
	"testing"
)

// TestPullWhereTableScanOff is ksqlDB's ksql.query.pull.table.scan.enabled
// through the binary (issue 17): set to false in the server's config, a
// pull query looking up keys answers, one that would read the whole table
// is refused with a 400 naming the rule and the property, and a request
// may turn scans back on; NULL keys are refused whatever the setting.
func TestPullWhereTableScanOff(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.auto.offset.reset=earliest\nksql.query.pull.table.scan.enabled=false\n"))
	n.mustKsql(`CREATE STREAM clicks (id VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	var kvs []string
	for i := range 12 {
		kvs = append(kvs, fmt.Sprintf("u%d", i%3), fmt.Sprintf(`{"PAGE":"p%d"}`, i))
	}
	produce(t, n.Kafka, "clicks", kvs...)
	n.mustKsql(`CREATE TABLE clicks_per_user AS SELECT id, COUNT(*) AS n FROM clicks GROUP BY id EMIT CHANGES;`)

	if err := same(counts(t, n, "SELECT * FROM clicks_per_user WHERE id IN ('u0', 'u2');"), map[string]string{"u0": "4", "u2": "4"}); err != nil {
		t.Fatalf("key lookup with table scans off: %v", err)
	}
	refused := map[string]string{
		"SELECT * FROM clicks_per_user WHERE n > 1;":                           "WHERE clause missing key column for disjunct",
		"SELECT * FROM clicks_per_user;":                                       "Query requires table scan to be enabled",
		"SELECT * FROM clicks_per_user WHERE id = 'u0' OR n = 4;":              "WHERE clause missing key column for disjunct",
		"SELECT * FROM clicks_per_user WHERE id IN ('u0', CAST(n AS STRING));": "A comparison must be between a key column and a resolvable expression",
		"SELECT * FROM clicks_per_user WHERE id = 'u0' AND id = 'u1';":         "cannot be combined with other comparisons",
	}
	for sql, want := range refused {
		_, err := pullRows(n, sql)
		if err == nil || !strings.Contains(err.Error(), ": 400 ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with table scans off: got %v, want a 400 saying %q", sql, err, want)
		}
	}
	rows, err := pullRowsWith(n, "SELECT * FROM clicks_per_user WHERE n > 1;", map[string]any{"ksql.query.pull.table.scan.enabled": true})
	if err != nil || len(rows) != 3 {
		t.Fatalf("table scan turned on by the request: rows %v, error %v; want 3 rows", rows, err)
	}
	_, err = pullRowsWith(n, "SELECT * FROM clicks_per_user WHERE id IN ('u0', NULL);", map[string]any{"ksql.query.pull.table.scan.enabled": true})
	if err == nil || !strings.Contains(err.Error(), "Primary key columns can not be NULL") {
		t.Fatalf("NULL key with table scans on: got %v, want a 400 saying keys are never NULL", err)
	}
}
