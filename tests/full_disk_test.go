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
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
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
	return queryStateOf(t, n, "")
}

// queryStateOf returns the state and error text of the server's one
// query whose id contains idPart (SHOW QUERIES EXTENDED).
func queryStateOf(t *testing.T, n *node, idPart string) (string, string) {
	t.Helper()
	_, raw := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW QUERIES EXTENDED;"})
	type desc struct {
		ID          string `json:"id"`
		State       string `json:"state"`
		QueryErrors []struct {
			ErrorMessage string `json:"errorMessage"`
		} `json:"queryErrors"`
	}
	var ents []struct {
		Queries []desc `json:"queryDescriptions"`
	}
	if err := json.Unmarshal(raw, &ents); err != nil || len(ents) != 1 {
		t.Fatalf("SHOW QUERIES EXTENDED: %v: %s", err, raw)
	}
	var found []desc
	for _, q := range ents[0].Queries {
		if strings.Contains(q.ID, idPart) {
			found = append(found, q)
		}
	}
	if len(found) != 1 {
		t.Fatalf("SHOW QUERIES EXTENDED: %d queries with %q in their id: %s", len(found), idPart, raw)
	}
	var msgs []string
	for _, e := range found[0].QueryErrors {
		msgs = append(msgs, e.ErrorMessage)
	}
	return found[0].State, strings.Join(msgs, "\n")
}

// TestFullDiskPutsQueryInError (issue 16, point 7): the local state of
// an at_least_once count lives on a 16 MiB tmpfs; once the disk is full
// the query goes to ERROR saying the disk is full and what to do, the
// server keeps answering, SIGTERM stops it cleanly (the failed state DB
// closes within its bound), and once the disk has room again a restart
// brings the count back to RUNNING, counting on.
func TestFullDiskPutsQueryInError(t *testing.T) {
	t.Parallel()
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

// TestFullDiskRecoversByItself (issue 16, point 7): as above, but the
// server is not restarted. Once the filler is removed the server finds
// the disk taking writes again, reopens its local state, and restarts the
// count, which goes back to RUNNING by itself; /healthcheck turns green;
// every key produced before, during and after the failure is in the
// sink (at_least_once: none lost); a pull query answers; a second count,
// quiet during the failure, stays or comes back RUNNING and counts on
// (its stores, durable when the DB failed, survive the reopen).
func TestFullDiskRecoversByItself(t *testing.T) {
	t.Parallel()
	testFullDiskRecovers(t, "at_least_once")
}

// TestFullDiskRecoversByItselfEOS is TestFullDiskRecoversByItself under
// exactly_once_v2: every key is counted exactly once in the sink.
func TestFullDiskRecoversByItselfEOS(t *testing.T) {
	t.Parallel()
	testFullDiskRecovers(t, "exactly_once_v2")
}

func testFullDiskRecovers(t *testing.T, guarantee string) {
	kafka := startBroker(t, t.TempDir()).Addrs()[0]
	dataDir := t.TempDir()
	stateDir := filepath.Join(dataDir, "state")
	mountSmallDisk(t, stateDir, "16m")
	cfg := writeConfig(t, "ksql.streams.commit.interval.ms=100\nksql.streams.processing.guarantee="+guarantee+"\n")
	n := startNodeArgs(t, dataDir, "--listen", "127.0.0.1:0", "--bootstrap-servers", kafka, "--data-dir", dataDir,
		"--config", cfg, "--log-level", "debug")
	n.Kafka = kafka
	t.Cleanup(func() {
		if t.Failed() {
			logs := n.Logs()
			t.Logf("server log (the end):\n%s", logs[max(0, len(logs)-20000):])
		}
	})
	n.mustKsql(`CREATE STREAM ev (k VARCHAR KEY, v VARCHAR) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest'; CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k;`)
	// A second count whose input is quiet while the disk is full: it ends
	// RUNNING and counting too, whether it went to ERROR or not.
	n.mustKsql(`CREATE STREAM other (k VARCHAR KEY, v VARCHAR) WITH (KAFKA_TOPIC='other', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	n.mustKsql(`SET 'auto.offset.reset'='earliest'; CREATE TABLE other_counts AS SELECT k, COUNT(*) AS n FROM other GROUP BY k;`)
	cl := kafkaClient(t, kafka)
	produceTo := func(topic string, from, to int) {
		var recs []*kgo.Record
		for i := from; i < to; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "k%05d", i), Value: []byte(`{"V":"x"}`)})
		}
		if err := cl.ProduceSync(timeoutCtx(t), recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produceKeys := func(from, to int) { produceTo("ev", from, to) }
	produceKeys(0, 100)
	produceTo("other", 0, 50)
	eventually(t, "the first counts", func() error {
		if got := len(mustPull(t, n, "SELECT * FROM counts;")); got != 100 {
			return fmt.Errorf("%d keys counted", got)
		}
		if got := len(mustPull(t, n, "SELECT * FROM other_counts;")); got != 50 {
			return fmt.Errorf("%d other keys counted", got)
		}
		return nil
	})

	// Pull queries run throughout the failure and the reopen: local state
	// is never seen closed (an answer may be an error while the query is
	// in ERROR, never one of a closed store, and the server never dies).
	stopReads, readsDone := make(chan struct{}), make(chan error, 1)
	var pulls atomic.Int64
	go func() {
		pace := time.NewTicker(10 * time.Millisecond) // a steady load, not a wait: the machine is shared
		defer pace.Stop()
		for {
			select {
			case <-stopReads:
				readsDone <- nil
				return
			case <-pace.C:
			}
			if _, err := pullRows(n, "SELECT * FROM counts WHERE k = 'k00042';"); err != nil &&
				(strings.Contains(err.Error(), "closed") || strings.Contains(err.Error(), "connection refused")) {
				readsDone <- err
				return
			}
			pulls.Add(1)
		}
	}()

	filler := fillDisk(t, stateDir)
	produceKeys(100, 5000)
	eventuallyWithin(t, "the query in ERROR", 60*time.Second, func() error {
		if st, _ := queryStateOf(t, n, "CTAS_COUNTS"); st != "ERROR" {
			return fmt.Errorf("query %s", st)
		}
		return nil
	})
	if _, reason := queryStateOf(t, n, "CTAS_COUNTS"); !strings.Contains(reason, "fatal storage error") || !strings.Contains(reason, "free space") {
		t.Fatalf("the ERROR's reason:\n%s", reason)
	}
	if h := healthOf(t, n); h.IsHealthy || h.Details.Metastore.IsHealthy {
		t.Fatalf("/healthcheck while the disk is full: %+v, want unhealthy local state", h)
	}
	produceKeys(5000, 5100) // while failed
	eventually(t, "a probe of the full disk failing", func() error {
		if !strings.Contains(n.Logs(), "local state still takes no writes") {
			return errors.New("no failed probe logged yet")
		}
		return nil
	})
	if st, _ := queryStateOf(t, n, "CTAS_COUNTS"); st != "ERROR" {
		t.Fatalf("query %s while the disk is still full", st)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	freed := time.Now()
	eventuallyWithin(t, "the count RUNNING again without a restart", 2*time.Minute, func() error {
		if st, _ := queryStateOf(t, n, "CTAS_COUNTS"); st != "RUNNING" {
			return fmt.Errorf("query %s", st)
		}
		return nil
	})
	t.Logf("%s: RUNNING again %v after the space was freed", guarantee, time.Since(freed).Round(time.Millisecond))
	eventually(t, "/healthcheck green again", func() error {
		if h := healthOf(t, n); !h.IsHealthy {
			return fmt.Errorf("%+v", h)
		}
		return nil
	})
	produceKeys(5100, 5200) // after
	produceTo("other", 50, 100)
	eventually(t, "the quiet count RUNNING and counting after the recovery", func() error {
		if st, _ := queryStateOf(t, n, "CTAS_OTHER_COUNTS"); st != "RUNNING" {
			return fmt.Errorf("query %s", st)
		}
		if got := len(mustPull(t, n, "SELECT * FROM other_counts;")); got != 100 {
			return fmt.Errorf("%d other keys counted", got)
		}
		return nil
	})
	close(stopReads)
	if err := <-readsDone; err != nil {
		t.Fatalf("a pull query during the failure and the reopen: %v", err)
	}
	t.Logf("%d pull queries answered during the failure and the recovery", pulls.Load())

	var counts map[string]int64
	eventuallyWithin(t, "every key in the sink", 2*time.Minute, func() error {
		counts = lastCounts(t, kafka, "COUNTS")
		if len(counts) != 5200 {
			return fmt.Errorf("%d of 5200 keys in the sink", len(counts))
		}
		return nil
	})
	for k, c := range counts {
		if c < 1 || guarantee == "exactly_once_v2" && c != 1 {
			t.Fatalf("%s counted %d times in the sink under %s (each key was produced once)", k, c, guarantee)
		}
	}
	eventually(t, "a pull query of a key produced after the recovery", func() error {
		if rows := mustPull(t, n, "SELECT * FROM counts WHERE k = 'k05150';"); len(rows) != 1 {
			return fmt.Errorf("rows %v", rows)
		}
		return nil
	})
	for _, line := range strings.Split(n.Logs(), "\n") {
		if strings.Contains(line, "local state") {
			t.Log(line)
		}
	}
	for _, want := range []string{"local state takes writes again", "restarted a query that failed on local state"} {
		if !strings.Contains(n.Logs(), want) {
			t.Fatalf("the log does not say %q", want)
		}
	}
}

// lastCounts reads the committed records (read_committed) of a count
// table's sink topic up to its last stable offsets as listed first, and
// returns the last N per key.
func lastCounts(t *testing.T, addr, topic string) map[string]int64 {
	t.Helper()
	ctx := timeoutCtx(t)
	ends, err := kadm.NewClient(kafkaClient(t, addr)).ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		t.Fatalf("last stable offsets of %s: %v", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	cl := kafkaClient(t, addr, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	out := map[string]int64{}
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading %s to %v: %v", topic, want, ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			if end, ok := want[r.Partition]; ok && r.Offset+1 >= end {
				delete(want, r.Partition)
			}
			if r.Attrs.IsControl() {
				return
			}
			var row struct{ N int64 }
			if err := json.Unmarshal(r.Value, &row); err != nil {
				t.Fatalf("sink record %s=%s: %v", r.Key, r.Value, err)
			}
			out[string(r.Key)] = row.N
		})
	}
	return out
}
