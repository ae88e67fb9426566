package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sqlstream/sqlstream/api"
)

// mountSmallDisk mounts a tmpfs of size at dir (created), unmounted when
// the test ends; it skips the test where mounting is refused (not root,
// no mount namespace).
func mountSmallDisk(t *testing.T, dir, size string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("a small file system is needed for the full disk (mount -t tmpfs, as root): %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
}

// fillDisk writes a file into dir until the file system is full and
// returns its path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return p
		}
	}
}

// queryState returns the state and error text of the server's one query
// (SHOW QUERIES EXTENDED).
func queryState(t *testing.T, n *node) (string, string) {
	t.Helper()
	_, raw := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW QUERIES EXTENDED;"})
	var ents []struct {
		Queries []struct {
			State       string `json:"state"`
			QueryErrors []struct {
				ErrorMessage string `json:"errorMessage"`
			} `json:"queryErrors"`
		} `json:"queryDescriptions"`
	}
	if err := json.Unmarshal(raw, &ents); err != nil || len(ents) != 1 || len(ents[0].Queries) != 1 {
		t.Fatalf("SHOW QUERIES EXTENDED: %v: %s", err, raw)
	}
	q := ents[0].Queries[0]
	var msgs []string
	for _, e := range q.QueryErrors {
		msgs = append(msgs, e.ErrorMessage)
	}
	return q.State, strings.Join(msgs, "\n")
}

// TestFullDiskPutsQueryInError (issue 16, point 7): the local state of
// an at_least_once count lives on a 16 MiB tmpfs; once the disk is full
// the query goes to ERROR saying the disk is full and what to do, the
// server keeps answering, SIGTERM stops it cleanly (the failed state DB
// closes within its bound), and once the disk has room again a restart
// brings the count back to RUNNING, counting on.
func TestFullDiskPutsQueryInError(t *testing.T) {
	kafka := startBroker(t, t.TempDir()).Addrs()[0]
	dataDir := t.TempDir()
	stateDir := filepath.Join(dataDir, "state")
	mountSmallDisk(t, stateDir, "16m")
	cfg := writeConfig(t, "ksql.streams.commit.interval.ms=100\n")
	n := startNodeArgs(t, dataDir, "--listen", "127.0.0.1:0", "--bootstrap-servers", kafka, "--data-dir", dataDir,
		"--config", cfg, "--log-level", "debug")
	n.Kafka = kafka
	n.mustKsql(`CREATE STREAM ev (k VARCHAR KEY, v VARCHAR) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest'; CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k;`)
	cl := kafkaClient(t, kafka)
	produceKeys := func(from, to int) {
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, &kgo.Record{Topic: "ev", Key: fmt.Appendf(nil, "k%05d", i), Value: []byte(`{"V":"x"}`)})
		}
		if err := cl.ProduceSync(timeoutCtx(t), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produceKeys(0, 100)
	eventually(t, "the first counts", func() error {
		if got := len(mustPull(t, n, "SELECT * FROM counts;")); got != 100 {
			return fmt.Errorf("%d keys counted", got)
		}
		return nil
	})

	filler := fillDisk(t, stateDir)
	produceKeys(100, 5000)
	var reason string
	eventuallyWithin(t, "the query in ERROR", 60*time.Second, func() error {
		st, msg := queryState(t, n)
		if st != "ERROR" {
			return fmt.Errorf("query %s", st)
		}
		reason = msg
		return nil
	})
	for _, want := range []string{"is full", "fatal storage error", "free space"} {
		if !strings.Contains(reason, want) {
			t.Fatalf("the ERROR's reason does not say %q:\n%s", want, reason)
		}
	}
	n.mustKsql("SHOW STREAMS;") // the server still answers
	health := healthOf(t, n)
	if health.IsHealthy || health.Details.Metastore.IsHealthy || !strings.Contains(health.Details.Metastore.Error, "free space") {
		t.Fatalf("/healthcheck after the full disk: %+v, want unhealthy local state saying to free space", health)
	}
	n.stop() // fails the test unless it exits cleanly in time

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	n.start()
	produceKeys(5000, 5001)
	eventually(t, "the count RUNNING again after the restart", func() error {
		if st, _ := queryState(t, n); st != "RUNNING" {
			return fmt.Errorf("query %s", st)
		}
		if rows := mustPull(t, n, "SELECT * FROM counts WHERE k = 'k05000';"); len(rows) != 1 {
			return fmt.Errorf("k05000 not counted: %v", rows)
		}
		return nil
	})
}

// healthOf reads n's /healthcheck.
func healthOf(t *testing.T, n *node) api.HealthCheckResponse {
	t.Helper()
	resp, err := http.Get(n.URL + "/healthcheck")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h api.HealthCheckResponse
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatalf("/healthcheck: %v", err)
	}
	return h
}
