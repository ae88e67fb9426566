package tests

import (
	"strings"
	"testing"
)

// TestExplodeThenGroupBy runs table functions through the binary: a CSAS
// explodes each order into one row per item (zipping two arrays), a CTAS
// groups the exploded stream, and a pull query reads the counts. EXPLAIN
// shows the FlatMap step; SHOW FUNCTIONS and DESCRIBE FUNCTION list
// EXPLODE as a TABLE function.
func TestExplodeThenGroupBy(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM orders (id VARCHAR KEY, items ARRAY<VARCHAR>, qtys ARRAY<INT>)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE STREAM order_lines AS SELECT id, EXPLODE(items) AS item, EXPLODE(qtys) AS qty FROM orders;
	CREATE TABLE per_item AS SELECT item, COUNT(*) AS n, SUM(qty) AS total FROM order_lines GROUP BY item;`)
	produce(t, n.Kafka, "orders",
		"o1", `{"ITEMS":["apple","pear"],"QTYS":[1,2]}`,
		"o2", `{"ITEMS":["apple"],"QTYS":[5,7]}`,
		"o3", `{"ITEMS":[],"QTYS":null}`)

	want := map[string]string{"apple": "2 6", "pear": "1 2"}
	eventually(t, "per-item counts", func() error {
		return same(counts(t, n, "SELECT item, n, total FROM per_item;"), want)
	})

	explain := jsonText(t, n.mustKsql("EXPLAIN CSAS_ORDER_LINES_1;"))
	if !strings.Contains(explain, "Processor: FlatMap") || !strings.Contains(explain, "FLAT_MAP") {
		t.Errorf("EXPLAIN shows no FlatMap step: %s", explain)
	}
	describe := jsonText(t, n.mustKsql("DESCRIBE FUNCTION EXPLODE;"))
	if !strings.Contains(describe, `"type":"TABLE"`) || !strings.Contains(describe, "Explodes an array") {
		t.Errorf("DESCRIBE FUNCTION EXPLODE: %s", describe)
	}
	show := jsonText(t, n.mustKsql("SHOW FUNCTIONS;"))
	if !strings.Contains(show, `{"category":"TABLE","name":"CUBE_EXPLODE","type":"TABLE"}`) {
		t.Errorf("SHOW FUNCTIONS lacks CUBE_EXPLODE as a TABLE function: %s", show)
	}
}
