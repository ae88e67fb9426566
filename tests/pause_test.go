package tests

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestPauseResumeThroughREST: PAUSE and RESUME of a persistent query
// through the binary's /ksql, answered as ksqlDB answers them; the
// query shows PAUSED in SHOW QUERIES, EXPLAIN (its per-host status too)
// and /status, stays paused across a restart of the server (the command
// log replays the PAUSE), and once resumed processes the records written
// meanwhile, each once.
func TestPauseResumeThroughREST(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.auto.offset.reset=earliest\n"))
	n.mustKsql(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	created := n.mustKsql(`CREATE STREAM t WITH (KAFKA_TOPIC='t') AS SELECT k, v * 2 AS w FROM s;`)
	id := fmt.Sprint(field(t, created, 0, "commandStatus", "queryId"))
	writeValues := func(from, to int) {
		var kvs []string
		for i := from; i < to; i++ {
			kvs = append(kvs, fmt.Sprintf("k%d", i), fmt.Sprintf(`{"V":%d}`, i))
		}
		produce(t, n.Kafka, "s", kvs...)
	}
	writeValues(0, 5)
	consume(t, n.Kafka, "t", 5)

	paused := n.mustKsql("PAUSE " + id + ";")
	if msg, cid := field(t, paused, 0, "commandStatus", "message"), field(t, paused, 0, "commandId"); msg != "Query paused." || cid != "pause/"+id+"/execute" {
		t.Fatalf("PAUSE answered %v", paused)
	}
	if status, body := n.get("/status/pause/" + id + "/execute"); status != http.StatusOK || !strings.Contains(string(body), "SUCCESS") {
		t.Fatalf("GET /status of the PAUSE: %d %s", status, body)
	}
	n.assertPaused(t, id)
	status, refused := n.ksql("PAUSE CSAS_NOPE_1;", nil)
	if status != http.StatusBadRequest || !strings.Contains(fmt.Sprint(refused), "Unknown queryId: CSAS_NOPE_1") {
		t.Fatalf("PAUSE of an unknown id: %d %v", status, refused)
	}

	writeValues(5, 10)
	n.restart()
	n.assertPaused(t, id)
	if msg := field(t, n.mustKsql("RESUME "+id+";"), 0, "commandStatus", "message"); msg != "Query resumed." {
		t.Fatalf("RESUME answered %v", msg)
	}
	if got := consume(t, n.Kafka, "t", 10); len(got) != 10 {
		t.Fatalf("outputs after RESUME: %v", got)
	}
	ends, err := kadm.NewClient(kafkaClient(t, n.Kafka)).ListEndOffsets(timeoutCtx(t), "t")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != 10 {
		t.Fatalf("t holds %d records after RESUME, want the 10 inputs' once each", total)
	}
}

// assertPaused checks that SHOW QUERIES and EXPLAIN show query id PAUSED,
// on this server's host too.
func (n *node) assertPaused(t *testing.T, id string) {
	t.Helper()
	shown := fmt.Sprint(n.mustKsql("SHOW QUERIES;"))
	if !strings.Contains(shown, "state:PAUSED") || !strings.Contains(shown, "statusCount:map[PAUSED:1]") {
		t.Fatalf("SHOW QUERIES: %s", shown)
	}
	explained := n.mustKsql("EXPLAIN " + id + ";")
	if st := field(t, explained, 0, "queryDescription", "state"); st != "PAUSED" {
		t.Fatalf("EXPLAIN state %v, want PAUSED", st)
	}
	hosts := fmt.Sprint(field(t, explained, 0, "queryDescription", "ksqlHostQueryStatus"))
	if !strings.Contains(hosts, ":PAUSED") || strings.Contains(hosts, "RUNNING") {
		t.Fatalf("EXPLAIN per-host status %s, want PAUSED", hosts)
	}
}

// field walks a decoded /ksql answer: the i-th entity, then keys.
func field(t *testing.T, v any, i int, keys ...string) any {
	t.Helper()
	list, ok := v.([]any)
	if !ok || len(list) <= i {
		t.Fatalf("answer %v has no entity %d", v, i)
	}
	cur := list[i]
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("answer %v: no %s", v, strings.Join(keys, "."))
		}
		cur = m[k]
	}
	return cur
}
