package tests

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestScalablePushQueryIDs is issue 17's scalable push queries through
// the binary: with ksql.query.push.v2.enabled, a push query over a CSAS's
// output is named SCALABLE_PUSH_QUERY_<uuid>, delivers the rows the CSAS
// writes and ends on /close-query of that id; one with a GROUP BY keeps
// its transient_ name.
func TestScalablePushQueryIDs(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.query.push.v2.enabled=true\nksql.streams.auto.offset.reset=latest\n"))
	n.mustKsql(`CREATE STREAM s (k VARCHAR KEY, a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE STREAM c AS SELECT * FROM s;`)
	id, lines := n.openPush("SELECT k, a FROM c EMIT CHANGES;")
	if !strings.HasPrefix(id, "SCALABLE_PUSH_QUERY_") {
		t.Fatalf("push query over a CSAS output: id %q, want SCALABLE_PUSH_QUERY_…", id)
	}
	agg, _ := n.openPush("SELECT k, COUNT(*) FROM c GROUP BY k EMIT CHANGES;")
	if !strings.HasPrefix(agg, "transient_") {
		t.Errorf("aggregating push query: id %q, want transient_…", agg)
	}
	got := make(chan string, 1)
	go func() {
		line, _ := lines.ReadString('\n')
		got <- line
	}()
	// The query reads from latest: produce until a row arrives (each
	// attempt a new record, so none is waited for that was produced
	// before the query's consumer took its position).
	var row string
	for i := 0; row == ""; i++ {
		produce(t, n.Kafka, "s", "k1", fmt.Sprintf(`{"A":%d}`, i))
		select {
		case row = <-got:
		case <-time.After(time.Second):
			if i > 30 {
				t.Fatal("no row from the scalable push query")
			}
		}
	}
	if !strings.HasPrefix(row, `["k1",`) {
		t.Fatalf("scalable push query row %q", row)
	}
	if status, raw := n.post("/close-query", "application/json", map[string]any{"queryId": id}); status != 200 {
		t.Fatalf("/close-query %s: %d %s", id, status, raw)
	}
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, lines); done <- err }()
	select {
	case <-done:
	case <-time.After(clientTimeout):
		t.Fatalf("the scalable push query stream did not end after /close-query %s", id)
	}
}
