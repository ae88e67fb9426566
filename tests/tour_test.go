package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// The README's tour, statement for statement.
const (
	createPageviews = `CREATE STREAM pageviews (user_id VARCHAR KEY, page VARCHAR, ms BIGINT)
  WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON', PARTITIONS=4);`
	createProductViews = `CREATE STREAM product_views AS
  SELECT user_id, page, ms * 2 AS double_ms, UCASE(page) AS p
  FROM pageviews
  WHERE page LIKE '/product/%'
  EMIT CHANGES;`
)

// TestTour runs the README tour against the binary: DDL and CSAS over
// /ksql, INSERT VALUES, a raw Kafka produce, the sink topic read with
// franz-go, a push query over /query-stream, then a restart on the same
// data directory after which the catalog, the data and the persistent
// query are all still there.
func TestTour(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(createPageviews)
	n.mustKsql(createProductViews)
	n.mustKsql(`INSERT INTO pageviews (user_id, page, ms) VALUES ('alice', '/product/42', 1200);
INSERT INTO pageviews (user_id, page, ms) VALUES ('bob', '/home', 300);`)
	produce(t, n.Kafka, "page-views", "carol", `{"PAGE":"/product/7","MS":50}`)

	want := []string{
		`alice={"DOUBLE_MS":2400,"P":"/PRODUCT/42","PAGE":"/product/42"}`,
		`carol={"DOUBLE_MS":100,"P":"/PRODUCT/7","PAGE":"/product/7"}`,
	}
	assertRecords(t, canonicalJSON(t, consume(t, n.Kafka, "PRODUCT_VIEWS", 2)), want)

	res := n.queryStream("SELECT * FROM product_views EMIT CHANGES LIMIT 2;",
		map[string]any{"auto.offset.reset": "earliest"}, 2)
	if got := fmt.Sprint(res.Header["columnNames"]); got != "[USER_ID PAGE DOUBLE_MS P]" {
		t.Fatalf("/query-stream columns %s, header %v", got, res.Header)
	}
	assertRecords(t, rowStrings(res.Rows), []string{
		"[alice /product/42 2400 /PRODUCT/42]",
		"[carol /product/7 100 /PRODUCT/7]",
	})

	n.restart()
	for _, name := range []string{"PAGEVIEWS", "PRODUCT_VIEWS"} {
		if !strings.Contains(fmt.Sprint(n.mustKsql("SHOW STREAMS;")), name) {
			t.Fatalf("SHOW STREAMS after restart lacks %s", name)
		}
	}
	produce(t, n.Kafka, "page-views", "dave", `{"PAGE":"/product/1","MS":10}`)
	assertRecords(t, canonicalJSON(t, consume(t, n.Kafka, "PRODUCT_VIEWS", 3)), append(want,
		`dave={"DOUBLE_MS":20,"P":"/PRODUCT/1","PAGE":"/product/1"}`))
}

// TestTourWithKcat produces into the source topic and consumes the sink
// topic with kcat, as the README shows.
func TestTourWithKcat(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	n := startNode(t)
	n.mustKsql(createPageviews + "\n" + createProductViews)
	kcatProduce(t, n.Kafka, "page-views", `dave:{"PAGE":"/product/1","MS":10}`, `erin:{"PAGE":"/about","MS":20}`)
	got := canonicalJSON(t, kcatConsumeWait(t, n.Kafka, "PRODUCT_VIEWS", 1))
	assertRecords(t, got, []string{`dave={"DOUBLE_MS":20,"P":"/PRODUCT/1","PAGE":"/product/1"}`})
}

// TestKsqlErrorsAreStatementErrors: a bad statement answers 400 with
// ksqlDB's statement_error entity.
func TestKsqlErrorsAreStatementErrors(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	status, v := n.ksql("CREATE STREAM broken (x INT) WITH (KAFKA_TOPIC='missing', VALUE_FORMAT='JSON');", nil)
	body, _ := v.(map[string]any)
	if status != http.StatusBadRequest || body["@type"] != "statement_error" {
		t.Fatalf("status %d, body %v; want 400 statement_error", status, v)
	}
}

// canonicalJSON rewrites "key=json" records with the JSON re-encoded with
// sorted keys, so field order does not matter.
func canonicalJSON(t *testing.T, records []string) []string {
	t.Helper()
	out := make([]string, len(records))
	for i, r := range records {
		k, v, _ := strings.Cut(r, "=")
		var m map[string]any
		if err := json.Unmarshal([]byte(v), &m); err != nil {
			t.Fatalf("record %q: value is not a JSON object: %v", r, err)
		}
		b, _ := json.Marshal(m)
		out[i] = k + "=" + string(b)
	}
	sort.Strings(out)
	return out
}

func rowStrings(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprint(r)
	}
	sort.Strings(out)
	return out
}

func assertRecords(t *testing.T, got, want []string) {
	t.Helper()
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
