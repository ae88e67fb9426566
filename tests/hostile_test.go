package tests

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// TestNulValueIsNoTombstone is issue 9's "silent tombstones": on a table, a
// JSON value that starts with a NUL byte (what a schema-registry serializer
// writes: magic byte 0, then a schema id) or that has bytes after its JSON
// must not delete the row. Each is a deserialization error in the
// processing log, with its offset, and the row keeps its last good value.
func TestNulValueIsNoTombstone(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE TABLE accounts (id VARCHAR PRIMARY KEY, a INT)
	  WITH (KAFKA_TOPIC='accounts', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE accounts_copy AS SELECT * FROM accounts EMIT CHANGES;`)
	produce(t, n.Kafka, "accounts", "k1", `{"A":1}`, "k2", `{"A":2}`)
	eventually(t, "rows before the bad records", func() error {
		return same(counts(t, n, "SELECT * FROM accounts_copy;"), map[string]string{"k1": "1", "k2": "2"})
	})

	produce(t, n.Kafka, "accounts",
		"k1", "\x00\x00\x00\x00\x01{\"A\":99}", // schema-registry framing
		"k2", "{\"A\":22}\x00junk", // trailing bytes
		"k3", `{"A":3}`) // a good record after them still arrives
	eventually(t, "rows after the bad records", func() error {
		return same(counts(t, n, "SELECT * FROM accounts_copy;"), map[string]string{"k1": "1", "k2": "2", "k3": "3"})
	})

	logged := strings.Join(consume(t, n.Kafka, "default_ksql_processing_log", 2), "\n")
	for _, want := range []string{`"RECORDOFFSET":2`, `"RECORDOFFSET":3`} {
		if !strings.Contains(logged, want) {
			t.Errorf("processing log lacks %s: %s", want, logged)
		}
	}
	if c := strings.Count(logged, "Failed to deserialize value"); c != 2 {
		t.Errorf("processing log has %d value deserialization errors, want 2: %s", c, logged)
	}
}

// TestIllegalTopicNameRejected is issue 9's "unbootable data directory": a
// KAFKA_TOPIC too long for the broker to store as a directory is refused
// at CREATE with its position, a Kafka client asking the embedded broker
// for it is refused too, and the server restarts on its data directory.
func TestIllegalTopicNameRejected(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	long := strings.Repeat("t", 260)
	status, body := n.ksql("CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='"+long+"', VALUE_FORMAT='JSON', PARTITIONS=1);", nil)
	if status != 400 || !strings.Contains(fmt.Sprint(body), "260 characters long, the maximum is 249") {
		t.Fatalf("CREATE with a 260-character topic: %d %v", status, body)
	}
	resp, err := kadm.NewClient(kafkaClient(t, n.Kafka)).CreateTopic(timeoutCtx(t), 1, 1, nil, long)
	if err == nil {
		err = resp.Err
	}
	if !errors.Is(err, kerr.InvalidTopicException) {
		t.Fatalf("embedded broker created a 260-character topic: %v", err)
	}
	n.mustKsql("CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='fine', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.restart()
	n.mustKsql("DESCRIBE s;")
}

// TestCrossSiteRequestRefused is issue 9.12 through the binary: a page on
// another origin cannot run statements, whatever body type it sends; an
// origin on access.control.allow.origin can; the server keeps answering.
func TestCrossSiteRequestRefused(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "access.control.allow.origin=https://ui.example\n"))
	send := func(origin, ctype string) int {
		req := n.newRequest(context.Background(), "/ksql", "application/json",
			map[string]any{"ksql": "CREATE STREAM cs (a INT) WITH (KAFKA_TOPIC='cs', VALUE_FORMAT='JSON', PARTITIONS=1);"})
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		req.Header.Set("Content-Type", ctype)
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := send("https://evil.example", "application/json"); got != http.StatusForbidden {
		t.Errorf("foreign origin: status %d, want 403", got)
	}
	if got := send("https://evil.example", "text/plain"); got != http.StatusForbidden {
		t.Errorf("foreign origin, text/plain body: status %d, want 403", got)
	}
	if got := send("https://ui.example", "application/json"); got != http.StatusOK {
		t.Errorf("allowed origin: status %d, want 200", got)
	}
	n.mustKsql("DESCRIBE cs;")
}

// TestDNSRebindingReadsNothing is issue 16.12 through the binary: on the
// loopback listener a GET whose Host is a foreign name (a DNS-rebound
// page) gets 403 on /info, /clusterStatus and /metrics, and the server
// keeps answering a loopback Host.
func TestDNSRebindingReadsNothing(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	get := func(path, host string) (int, string) {
		req, err := http.NewRequest("GET", n.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/info", "/clusterStatus", "/metrics"} {
		if status, body := get(path, "rebind.example:8088"); status != http.StatusForbidden || !strings.Contains(body, "Host rebind.example:8088") {
			t.Errorf("GET %s with a foreign Host: %d %s, want 403", path, status, body)
		}
		if status, body := get(path, ""); status != http.StatusOK {
			t.Errorf("GET %s: %d %s, want 200", path, status, body)
		}
	}
}
