package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// killRun is one run of the kill -9 scenario: a server (broker in the
// test process, so a kill does not take the broker with it) counting
// events per key under a guarantee while it is SIGKILLed and restarted on
// the same data directory.
type killRun struct {
	t     *testing.T
	kafka string
	node  *node
	// readFor bounds one read of the sink (30 s if zero).
	readFor time.Duration
}

const (
	killEvents = 20_000
	killKeys   = 200
)

// startKillRun starts the broker and a server whose configuration file
// sets the guarantee server-wide, and creates the count.
func startKillRun(t *testing.T, guarantee string) *killRun {
	kafka := startBroker(t, t.TempDir()).Addrs()[0]
	dataDir := t.TempDir()
	cfg := filepath.Join(dataDir, "sqlstream.properties")
	props := "listeners=http://127.0.0.1:0\nbootstrap.servers=" + kafka +
		"\nksql.streams.processing.guarantee=" + guarantee + "\n"
	if err := os.WriteFile(cfg, []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &killRun{t: t, kafka: kafka, node: startNodeArgs(t, dataDir, "--config", cfg, "--data-dir", dataDir)}
	r.node.mustKsql(`CREATE STREAM ev (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=4);`)
	r.node.mustKsql(`SET 'auto.offset.reset'='earliest'; CREATE TABLE counts WITH (KAFKA_TOPIC='counts') AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k;`)
	return r
}

// produce writes the events at about 5 000 a second and returns the
// count per key.
func (r *killRun) produce(done chan<- map[string]int) {
	cl := kafkaClient(r.t, r.kafka)
	want := map[string]int{}
	for i := 0; i < killEvents; i += 100 {
		var batch []*kgo.Record
		for j := i; j < i+100; j++ {
			k := fmt.Sprintf("k%03d", (j*31)%killKeys)
			want[k]++
			batch = append(batch, &kgo.Record{Topic: "ev", Key: []byte(k), Value: fmt.Appendf(nil, `{"V":%d}`, j)})
		}
		if err := cl.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
			r.t.Error(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	done <- want
}

// killRestart SIGKILLs the server kills times at random moments while the
// events flow, restarting it on the same data directory each time.
func (r *killRun) killRestart(kills int, seed uint64) map[string]int {
	rng := rand.New(rand.NewPCG(seed, seed))
	done := make(chan map[string]int, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.produce(done) }()
	for i := range kills {
		time.Sleep(time.Duration(300+rng.IntN(900)) * time.Millisecond)
		r.t.Logf("kill -9 #%d", i+1)
		r.node.kill()
		r.node.start()
	}
	wg.Wait()
	return <-done
}

// sink reads the count table's topic read_committed to its last stable
// offsets: the count sequence of each key.
func (r *killRun) sink() map[string][]int {
	ctx, cancel := context.WithTimeout(context.Background(), max(30*time.Second, r.readFor))
	defer cancel()
	cl := kafkaClient(r.t, r.kafka, kgo.ConsumeTopics("counts"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	ends, err := kadm.NewClient(cl).ListCommittedOffsets(ctx, "counts")
	if err != nil {
		r.t.Fatal(err)
	}
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	out := map[string][]int{}
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			r.t.Fatalf("counts: partitions %v not read to their end", left)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			end, ok := left[rec.Partition]
			if !ok || rec.Offset >= end {
				return
			}
			if !rec.Attrs.IsControl() {
				var v struct{ N int }
				if err := json.Unmarshal(rec.Value, &v); err != nil {
					r.t.Fatal(err)
				}
				out[string(rec.Key)] = append(out[string(rec.Key)], v.N)
			}
			if rec.Offset+1 >= end {
				delete(left, rec.Partition)
			}
		})
	}
	return out
}

// settle waits until every key's last count in the sink is at least
// want's and returns the sink.
func (r *killRun) settle(want map[string]int) map[string][]int {
	deadline := time.Now().Add(180 * time.Second)
	for {
		got := r.sink()
		done := len(got) >= len(want)
		for k, n := range want {
			if s := got[k]; len(s) == 0 || s[len(s)-1] < n {
				done = false
			}
		}
		if done || time.Now().After(deadline) {
			return got
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// duplicates lists the keys whose count went wrong: a final count other
// than want's (a record lost or counted twice) or a sequence that does not
// strictly increase (a reprocessed record visible).
func duplicates(got map[string][]int, want map[string]int) []string {
	var bad []string
	for k, n := range want {
		s := got[k]
		if len(s) == 0 || s[len(s)-1] != n {
			bad = append(bad, fmt.Sprintf("%s: final %v, want %d", k, s, n))
			continue
		}
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				bad = append(bad, fmt.Sprintf("%s: %v", k, s))
				break
			}
		}
	}
	return bad
}

// TestEOSKillNine: under exactly_once_v2, three SIGKILLs at random moments
// during 20 000 events leave the read_committed sink and the table
// exactly as a clean run leaves them: every key's final count right, and
// no count repeated or going back.
func TestEOSKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 run")
	}
	r := startKillRun(t, "exactly_once_v2")
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	want := r.killRestart(3, seed)
	got := r.settle(want)
	if bad := duplicates(got, want); len(bad) > 0 {
		t.Fatalf("%d keys wrong after kill -9 (seed %d), e.g. %v\nlogs:\n%s", len(bad), seed, bad[:min(5, len(bad))], r.node.Logs())
	}
	rows := r.node.queryStream("SELECT k, n FROM counts;", nil, killKeys).Rows
	table := map[string]int{}
	for _, row := range rows {
		n, _ := row[1].(float64)
		table[fmt.Sprint(row[0])] = int(n)
	}
	if fmt.Sprint(table) != fmt.Sprint(want) {
		t.Errorf("pull query after kill -9: %d keys, want %d (seed %d)", len(table), len(want), seed)
	}
	logTransactionEnds(t, r.node)
}

// logTransactionEnds logs a server's transaction end latency (since its
// last restart).
func logTransactionEnds(t *testing.T, n *node) {
	resp, err := httpClient().Get(n.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "sqlstream_query_transaction_end") {
			t.Log(l)
		}
	}
}

// TestALOSKillNineDuplicates is the negative control, opt-in
// (SQLSTREAM_EOS_NEGATIVE=1) since whether a kill lands between an output
// and its offset commit is timing: under at_least_once the same schedule
// shows records counted twice.
func TestALOSKillNineDuplicates(t *testing.T) {
	if os.Getenv("SQLSTREAM_EOS_NEGATIVE") == "" {
		t.Skip("set SQLSTREAM_EOS_NEGATIVE=1 to run the at_least_once negative control")
	}
	r := startKillRun(t, "at_least_once")
	want := r.killRestart(3, uint64(time.Now().UnixNano()))
	got := r.settle(want)
	bad := duplicates(got, want)
	if len(bad) == 0 {
		t.Fatal("at_least_once showed no duplicate after three kill -9: the scenario has no teeth")
	}
	t.Logf("at_least_once: %d keys wrong, e.g. %v", len(bad), bad[:min(3, len(bad))])
}
