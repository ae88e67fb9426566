package tests

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPeerReplayRefused is issue 16.11 through the binary: a heartbeat
// signed with the service's shared secret is accepted once; the same
// request sent again within the signature's window is refused as a
// replay, and the server keeps answering.
func TestPeerReplayRefused(t *testing.T) {
	n := startNode(t, "--config", writeConfig(t, scaleoutConfig))
	body, err := json.Marshal(map[string]any{"hostInfo": map[string]any{"host": "127.0.0.1", "port": 1}, "timestamp": time.Now().UnixMilli()})
	if err != nil {
		t.Fatal(err)
	}
	sig := peerSignature("shared-secret-of-this-service", "POST", "/heartbeat", body)
	send := func() (int, string) {
		req, err := http.NewRequest("POST", n.URL+"/heartbeat", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Sqlstream-Peer", sig)
		resp, err := httpClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, b := send(); status != http.StatusOK {
		t.Fatalf("first heartbeat: %d %s", status, b)
	}
	if status, b := send(); status != http.StatusBadRequest || !strings.Contains(b, "replayed") {
		t.Fatalf("replayed heartbeat: %d %s, want 400 naming the replay", status, b)
	}
	n.mustKsql("SHOW STREAMS;")
}

// peerSignature is the X-Sqlstream-Peer value a server of the service
// whose command-topic secret is secret signs a request with
// (runtime/peer_auth.go): time, nonce and an HMAC over both, the method,
// the path and the body's SHA-256, keyed by a key derived from the secret.
func peerSignature(secret, method, path string, body []byte) string {
	k := hmac.New(sha256.New, []byte(secret))
	k.Write([]byte("sqlstream inter-node requests v1"))
	at, nonce := strconv.FormatInt(time.Now().UnixMilli(), 10), "test-nonce-"+strconv.FormatInt(time.Now().UnixNano(), 36)
	sum := sha256.Sum256(body)
	m := hmac.New(sha256.New, k.Sum(nil))
	m.Write([]byte(method + "\n" + path + "\n" + at + "\n" + nonce + "\n" + hex.EncodeToString(sum[:])))
	return at + ":" + nonce + ":" + hex.EncodeToString(m.Sum(nil))
}

// TestDeletedBrokerDataRefused is issue 16.13 through the binary: a
// partition directory or the groups.log of the embedded broker deleted
// while the server was stopped makes the next start fail naming it
// (instead of loading the partition empty and the offsets reset, which
// counts records twice); recreated empty, the server starts and answers.
func TestDeletedBrokerDataRefused(t *testing.T) {
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM lost (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='lost', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	n.mustKsql(`INSERT INTO lost (k, v) VALUES ('a', 1);`)
	for _, gone := range []string{filepath.Join("partitions", "lost-1"), "groups.log"} {
		n.stop()
		path := filepath.Join(n.dataDir, "broker", gone)
		if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runBinary(t, n.args...)
		if code == 0 || !strings.Contains(out+errOut, path) || !strings.Contains(out+errOut, "restore them from a backup") {
			t.Fatalf("start with %s deleted: exit %d\n%s\n%s", gone, code, out, errOut)
		}
		if gone == "groups.log" {
			err := os.WriteFile(path, nil, 0o644)
			if err != nil {
				t.Fatal(err)
			}
		} else if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		n.start()
		n.mustKsql("DESCRIBE lost;")
	}
}
