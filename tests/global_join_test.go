package tests

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestGlobalTableJoin runs a join with a GLOBAL table through the binary
// and the embedded broker: orders (4 partitions, keyed by order id) join
// regions (1 partition) on a function of a value column, INNER and LEFT,
// with no repartition topic; the results keep the orders' keys and are
// read back with kcat. SHOW TABLES and DESCRIBE say the table is global,
// a pull query reads it, a restart brings the global store up to date
// from the topic before processing (reading only what follows its local
// checkpoint: nothing here), and a plain table with the same mismatched
// partitions still gets the co-partitioning error.
func TestGlobalTableJoin(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM orders (id VARCHAR KEY, region VARCHAR, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=4);
	CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	kcatProduce(t, n.Kafka, "regions", `r1:{"NAME":"north"}`, `r2:{"NAME":"south"}`)
	n.mustKsql(`CREATE STREAM by_region AS SELECT o.id, r.name, o.total
	  FROM orders o JOIN regions r ON LCASE(o.region) = r.rid;
	CREATE STREAM by_region_all AS SELECT o.id, r.name, o.total
	  FROM orders o LEFT JOIN regions r ON LCASE(o.region) = r.rid;`)

	var lines, inner, all []string
	for i, region := range []string{"R1", "R2", "R3", "R1", "R2", "R1", "R9", "R2"} {
		id := fmt.Sprintf("o%d", i)
		lines = append(lines, fmt.Sprintf(`%s:{"REGION":"%s","TOTAL":%d}`, id, region, i))
		name := map[string]string{"R1": `"north"`, "R2": `"south"`}[region]
		if name != "" {
			inner = append(inner, fmt.Sprintf(`%s={"NAME":%s,"TOTAL":%d}`, id, name, i))
		} else {
			name = "null"
		}
		all = append(all, fmt.Sprintf(`%s={"NAME":%s,"TOTAL":%d}`, id, name, i))
	}
	kcatProduce(t, n.Kafka, "orders", lines...)
	if got := kcatConsumeWait(t, n.Kafka, "BY_REGION", len(inner)); strings.Join(got, " ") != strings.Join(sorted(inner), " ") {
		t.Fatalf("inner global join: got %v, want %v", got, sorted(inner))
	}
	if got := kcatConsumeWait(t, n.Kafka, "BY_REGION_ALL", len(all)); strings.Join(got, " ") != strings.Join(sorted(all), " ") {
		t.Fatalf("left global join: got %v, want %v", got, sorted(all))
	}
	checkGlobalMetadata(t, n)

	n.restart()
	kcatProduce(t, n.Kafka, "orders", `o9:{"REGION":"r2","TOTAL":9}`)
	inner = append(inner, `o9={"NAME":"south","TOTAL":9}`)
	if got := kcatConsumeWait(t, n.Kafka, "BY_REGION", len(inner)); !slices.Contains(got, inner[len(inner)-1]) {
		t.Fatalf("after a restart: got %v, want %s among them", got, inner[len(inner)-1])
	}
	checkGlobalTail(t, n)

	n.mustKsql(`CREATE TABLE plain_regions (rid VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON');`)
	status, v := n.ksql(`CREATE STREAM plain_j AS SELECT o.id, p.name FROM orders o JOIN plain_regions p ON o.id = p.rid;`, nil)
	if msg := jsonText(t, v); status != 400 || !strings.Contains(msg, "number of partitions don't match") {
		t.Fatalf("plain table with 1 partition against 4: status %d, %s", status, msg)
	}
}

// checkGlobalMetadata: SHOW TABLES and DESCRIBE mark the global table,
// EXPLAIN shows its store and no repartition topic, a pull query reads
// its rows.
func checkGlobalMetadata(t *testing.T, n *node) {
	t.Helper()
	if show := jsonText(t, n.mustKsql("SHOW TABLES;")); !strings.Contains(show, `{"isGlobal":true,"isWindowed":false,"keyFormat":"KAFKA","name":"REGIONS"`) {
		t.Errorf("SHOW TABLES does not say REGIONS is global: %s", show)
	}
	if d := jsonText(t, n.mustKsql("DESCRIBE regions;")); !strings.Contains(d, `"isGlobal":true`) {
		t.Errorf("DESCRIBE does not say REGIONS is global: %s", d)
	}
	explain := jsonText(t, n.mustKsql("EXPLAIN CSAS_BY_REGION_2;"))
	if !strings.Contains(explain, "for global store (will not generate tasks)") || !strings.Contains(explain, "REGIONS-GlobalStore") || strings.Contains(explain, "repartition") {
		t.Errorf("EXPLAIN shows no global store or a repartition topic: %s", explain)
	}
	rows := n.queryStream("SELECT rid, name FROM regions;", nil, 2).Rows
	if got := fmt.Sprint(rows); got != "[[r1 north] [r2 south]]" {
		t.Errorf("pull query on the global table: got %s", got)
	}
}

// checkGlobalTail: after a restart with the regions topic unchanged, the
// global store of BY_REGION (loaded: it joined o9) read no record (its
// local checkpoint is at the topic's end).
func checkGlobalTail(t *testing.T, n *node) {
	t.Helper()
	resp, err := httpClient().Get(n.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if m := `sqlstream_query_global_records_loaded_total{query="CSAS_BY_REGION_2"} 0`; !strings.Contains(string(body), m) {
		t.Errorf("after a restart, metrics have no %s:\n%s", m, body)
	}
}

func sorted(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
