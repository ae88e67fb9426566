package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProbesAndMetrics is issue 19.4 through the binary: /chc/live
// answers while the server serves; after a restart /chc/ready answers 200
// only once the persistent query restored from the command topic is
// RUNNING (never PENDING), and 503 with error 50302 before; /metrics
// carries the Go runtime, process and HTTP metrics beside the engine's.
func TestProbesAndMetrics(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM clicks (user VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE clicks_per_user AS SELECT user, COUNT(*) AS n FROM clicks GROUP BY user EMIT CHANGES;`)
	produce(t, n.Kafka, "clicks", "ann", `{"PAGE":"home"}`)
	n.stop()
	n.start()

	if status, body := get(t, n.URL+"/chc/live"); status != http.StatusOK || body != "{}" {
		t.Fatalf("/chc/live: %d %s", status, body)
	}
	eventually(t, "/chc/ready", func() error {
		status, body := get(t, n.URL+"/chc/ready")
		if status == http.StatusServiceUnavailable && strings.Contains(body, `"error_code":50302`) {
			return fmt.Errorf("not ready yet: %s", body)
		}
		if status != http.StatusOK || body != "{}" {
			t.Fatalf("/chc/ready: %d %s", status, body)
		}
		return nil
	})
	_, metrics := get(t, n.URL+"/metrics")
	for _, want := range []string{
		`sqlstream_queries{state="PENDING"} 0`, `sqlstream_queries{state="RUNNING"} 1`,
		"go_goroutines ", "process_resident_memory_bytes ",
		`sqlstream_http_requests_total{code="200",method="GET",route="/chc/ready"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics right after /chc/ready has no %q:\n%s", want, metrics)
		}
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := httpClient().Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, strings.TrimSpace(string(body))
}

// TestJSONLogs is issue 19.4's JSON logs through the binary: with
// --log-format json every line the server writes is one JSON object with
// time, level and msg, the ready line included, down to its shutdown.
func TestJSONLogs(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	cmd := exec.Command(binary(t), "server", "--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0",
		"--data-dir", dataDir, "--log-level", "debug", "--log-format", "json")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	url := ""
	deadline := time.After(startTimeout)
	for url == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("server exited before its ready line")
			}
			if rec := jsonLine(t, line); rec["msg"] == "sqlstream ready" {
				url, _ = rec["url"].(string)
			}
		case <-deadline:
			t.Fatalf("no JSON ready line after %v", startTimeout)
		}
	}
	if status, _ := get(t, url+"/chc/live"); status != http.StatusOK {
		t.Fatalf("/chc/live: %d", status)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for line := range lines {
		jsonLine(t, line)
	}
}

// jsonLine decodes one log line, failing the test unless it is a JSON
// object with time, level and msg.
func jsonLine(t *testing.T, line string) map[string]any {
	t.Helper()
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatalf("log line is not JSON (%v): %s", err, line)
	}
	for _, k := range []string{"time", "level", "msg"} {
		if _, ok := rec[k]; !ok {
			t.Fatalf("log line has no %q: %s", k, line)
		}
	}
	return rec
}
