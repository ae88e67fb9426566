package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// openPush starts a push query on /query-stream and returns its query id
// and the open response body, read line by line.
func (n *node) openPush(sql string) (string, *bufio.Reader) {
	n.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	n.t.Cleanup(cancel)
	resp, err := http.DefaultClient.Do(n.newRequest(ctx, "/query-stream", "application/vnd.ksqlapi.delimited.v1", map[string]any{"sql": sql}))
	if err != nil {
		n.t.Fatalf("/query-stream %q: %v", sql, err)
	}
	n.t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		n.t.Fatalf("/query-stream %q: %d %s", sql, resp.StatusCode, raw)
	}
	lines := bufio.NewReader(resp.Body)
	line, err := lines.ReadString('\n')
	var header struct{ QueryID string }
	if err != nil || json.Unmarshal([]byte(line), &header) != nil {
		n.t.Fatalf("/query-stream header %q: %v", line, err)
	}
	return header.QueryID, lines
}

func errorOf(v any) (code float64, msg string) {
	m, _ := v.(map[string]any)
	code, _ = m["error_code"].(float64)
	msg, _ = m["message"].(string)
	return code, msg
}

// TestKsqlBatchIsParsedFirst is issue 9.14 and 9.15 through the binary: a
// syntax error in the second statement runs nothing, a malformed SELECT on
// /ksql is its syntax error with a position, and DEFINE still reaches the
// statements after it.
func TestKsqlBatchIsParsedFirst(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	status, v := n.ksql(`CREATE STREAM first (a INT) WITH (KAFKA_TOPIC='first', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE STREAM second (a INT) WITH (KAFKA_TOPIC='second', VALUE_FORMAT='JSON', PARTITIONS=1) EXTRA;`, nil)
	if code, _ := errorOf(v); status != 400 || code != 40001 {
		t.Fatalf("batch with a bad second statement: %d %v", status, v)
	}
	if streams := fmt.Sprint(n.mustKsql("SHOW STREAMS;")); strings.Contains(streams, "FIRST") {
		t.Errorf("the first statement of a failed batch ran: %s", streams)
	}
	status, v = n.ksql("SELECT * FROM first WHERE;", nil)
	if code, msg := errorOf(v); status != 400 || code != 40001 || !strings.Contains(msg, "line 1:") || strings.Contains(msg, "/query") {
		t.Errorf("malformed SELECT on /ksql: %d %v", status, v)
	}
	n.mustKsql(`DEFINE t = 'via_var'; CREATE STREAM third (a INT) WITH (KAFKA_TOPIC='${t}', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	if d := fmt.Sprint(n.mustKsql("DESCRIBE third EXTENDED;")); !strings.Contains(d, "via_var") {
		t.Errorf("DEFINE did not reach the next statement: %s", d)
	}
}

// TestQueryStreamRunsOneStatement is issue 9.16: two statements on
// /query-stream or /query are a 400, and the second one does not run.
func TestQueryStreamRunsOneStatement(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql("CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	for _, c := range []struct{ path, field string }{{"/query-stream", "sql"}, {"/query", "ksql"}} {
		status, raw := n.post(c.path, "application/json", map[string]any{c.field: "SELECT * FROM s; DROP STREAM s;"})
		if status != 400 || !strings.Contains(string(raw), "Expected exactly one KSQL statement; found 2 instead") {
			t.Errorf("%s with two statements: %d %s", c.path, status, raw)
		}
	}
	n.mustKsql("DESCRIBE s;")
}

// TestTerminateTransientAndPushLimit is issue 9.17 and 9.7 through the
// binary: with ksql.max.push.queries=1 a second push query is refused with
// 40003; TERMINATE with the transient id as /query-stream printed it ends
// the first, which frees its place.
func TestTerminateTransientAndPushLimit(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.max.push.queries=1\n"))
	n.mustKsql("CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	id, lines := n.openPush("SELECT * FROM s EMIT CHANGES;")
	if !strings.HasPrefix(id, "transient_") {
		t.Fatalf("push query id %q", id)
	}
	status, raw := n.post("/query-stream", "application/vnd.ksqlapi.delimited.v1", map[string]any{"sql": "SELECT * FROM s EMIT CHANGES;"})
	if status != 400 || !strings.Contains(string(raw), `"error_code":40003`) || !strings.Contains(string(raw), "Maximum number of push queries exceeded") {
		t.Errorf("second push query with a limit of 1: %d %s", status, raw)
	}
	v := n.mustKsql("TERMINATE " + id + ";")
	if !strings.Contains(fmt.Sprint(v), id) {
		t.Errorf("TERMINATE %s answered %v", id, v)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, lines)
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(clientTimeout):
		t.Fatalf("the push query stream did not end after TERMINATE %s", id)
	}
	eventually(t, "a push query after TERMINATE", func() error {
		status, raw := n.post("/query", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SELECT * FROM s EMIT CHANGES LIMIT 0;"})
		if status != 200 {
			return fmt.Errorf("%d %s", status, raw)
		}
		return nil
	})
}

// TestTerminateKeepsServerAnswering is issue 9.4 through the binary: after
// TERMINATE of a persistent query /ksql and /healthcheck answer at once
// (the wedged-shutdown case is TestTerminateDoesNotHoldEngineLock in
// runtime).
func TestTerminateKeepsServerAnswering(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE STREAM c AS SELECT * FROM s;`)
	n.mustKsql("TERMINATE CSAS_C_1;")
	if q := fmt.Sprint(n.mustKsql("SHOW QUERIES;")); strings.Contains(q, "CSAS_C_1") {
		t.Errorf("SHOW QUERIES after TERMINATE: %s", q)
	}
	resp, err := httpClient().Get(n.URL + "/healthcheck")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(raw), `"isHealthy":true,"details"`) || !strings.Contains(string(raw), `"commandRunner":{"isHealthy":true}`) {
		t.Errorf("/healthcheck after TERMINATE: %s", raw)
	}
}

// TestBodyOverLimitIs413 is issue 9.8 through the binary: a /ksql body
// over 32 MiB is a 413, and the server keeps answering.
func TestBodyOverLimitIs413(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	status, raw := n.post("/ksql", "application/json", map[string]any{"ksql": strings.Repeat("x", 33<<20)})
	if status != http.StatusRequestEntityTooLarge || !strings.Contains(string(raw), `"error_code":41300`) {
		t.Errorf("a 33 MiB /ksql body: %d %.200s", status, raw)
	}
	n.mustKsql("SHOW STREAMS;")
}

// TestConfigLineOverLimit is issue 9.22: a config value over 64 KiB is an
// error naming its file and line.
func TestConfigLineOverLimit(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, "ksql.service.id=x_\nksql.functions.big="+strings.Repeat("v", 70000)+"\n")
	code, _, errOut := runBinary(t, "server", "--config", cfg, "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(errOut, cfg+":2: line longer than 65536 bytes") {
		t.Errorf("config with a 70000-byte line 2: exit %d, stderr %q", code, errOut)
	}
}
