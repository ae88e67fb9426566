package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// eosCounts creates the source s (partitions partitions) and the table
// named name counting its records per key, under guarantee.
func (f *faultRig) eosCounts(name, guarantee string, partitions int) {
	f.t.Helper()
	f.exec(fmt.Sprintf(`CREATE STREAM IF NOT EXISTS s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=%d);
	  SET 'auto.offset.reset'='earliest';
	  SET 'processing.guarantee'='%s';
	  CREATE TABLE %s WITH (KAFKA_TOPIC='%s') AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`, partitions, guarantee, name, name))
}

// produceEvents writes n events over keys keys to s in one batch and
// returns the count per key.
func (f *faultRig) produceEvents(n, keys int) map[string]int {
	f.t.Helper()
	want := map[string]int{}
	var recs []*kgo.Record
	for i := range n {
		k := fmt.Sprintf("k%03d", (i*7)%keys)
		want[k]++
		recs = append(recs, &kgo.Record{Topic: "s", Key: []byte(k), Value: fmt.Appendf(nil, `{"V":%d}`, i)})
	}
	if err := f.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		f.t.Fatal(err)
	}
	return want
}

// readTopic reads topic from the start to its end: the last stable offset
// read_committed (control records skipped), else the high watermark.
func (f *faultRig) readTopic(topic string, committed bool) []*kgo.Record {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	opts := []kgo.Opt{kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.KeepControlRecords()}
	list := f.adm.ListEndOffsets
	if committed {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
		list = f.adm.ListCommittedOffsets
	}
	ends, err := list(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		f.t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	defer cl.Close()
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	var out []*kgo.Record
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			f.t.Fatalf("%s: partitions %v not read to their end", topic, left)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			end, ok := left[rec.Partition]
			if !ok || rec.Offset >= end {
				return
			}
			if !rec.Attrs.IsControl() {
				out = append(out, rec)
			}
			if rec.Offset+1 >= end {
				delete(left, rec.Partition)
			}
		})
	}
	return out
}

// countsOf decodes a count table's records: the sequence of counts per
// key, in order.
func countsOf(t *testing.T, recs []*kgo.Record) map[string][]int {
	out := map[string][]int{}
	for _, r := range recs {
		var v struct{ N int }
		if err := json.Unmarshal(r.Value, &v); err != nil {
			t.Fatalf("%s: %v", r.Value, err)
		}
		out[string(r.Key)] = append(out[string(r.Key)], v.N)
	}
	return out
}

// awaitCounts waits until topic, read read_committed, ends with want per
// key, and checks that every key's counts strictly increase: no input
// record was counted twice, and no update got lost out of order.
func (f *faultRig) awaitCounts(topic string, want map[string]int) map[string][]int {
	f.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		got := countsOf(f.t, f.readTopic(topic, true))
		done := len(got) == len(want)
		for k, n := range want {
			if s := got[k]; len(s) == 0 || s[len(s)-1] != n {
				done = false
			}
		}
		if done {
			for k, s := range got {
				for i := 1; i < len(s); i++ {
					if s[i] <= s[i-1] {
						f.t.Fatalf("%s: key %s counts %v do not increase (a record counted twice)", topic, k, s)
					}
				}
			}
			return got
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s read_committed: %v, want final counts %v", topic, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// newEOSRig is a faultRig whose engine restartEngine can replace.
func newEOSRig(t *testing.T) *faultRig {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	f := &faultRig{t: t, c: c, cl: cl, adm: kadm.NewClient(cl)}
	f.restartEngine(t.TempDir())
	t.Cleanup(func() { f.e.Close() })
	return f
}

// restartEngine replaces the rig's engine by one on dir (a fresh
// directory: every store is restored from its changelog, read_committed).
func (f *faultRig) restartEngine(dir string) {
	f.t.Helper()
	if f.e != nil {
		f.e.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := runtime.New(ctx, runtime.WithBootstrap(f.c.ListenAddrs()), runtime.WithDataDir(dir),
		runtime.WithProperties(map[string]string{props.CommitInterval: "100"}),
		runtime.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		f.t.Fatal(err)
	}
	f.e = e
}

// assertPull checks the table's state store through a pull query.
func (f *faultRig) assertPull(table string, want map[string]int) {
	f.t.Helper()
	// Under exactly_once_v2 the store commits to Pebble right after the
	// transaction ends, so a pull query may trail the read_committed
	// output by a moment: retry, bounded.
	var got map[string]int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = f.pull(table)
		if fmt.Sprint(got) == fmt.Sprint(want) || time.Now().After(deadline) {
			break
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		f.t.Errorf("pull query on %s: %v, want %v", table, got, want)
	}
}

// pull returns the rows of a pull query on table as key → count.
func (f *faultRig) pull(table string) map[string]int {
	f.t.Helper()
	rs, err := f.e.Query(context.Background(), "SELECT k, n FROM "+table+";", nil, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	defer rs.Close()
	got := map[string]int{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		row, err := rs.Next(ctx)
		if err != nil {
			return got
		}
		got[fmt.Sprint(row.Values[0])] = int(row.Values[1].(int64))
	}
}

// TestEOSCountEqualsAtLeastOnce: on a clean run the same GROUP BY count
// under exactly_once_v2, read read_committed, ends with exactly the
// at-least-once query's counts, both right.
func TestEOSCountEqualsAtLeastOnce(t *testing.T) {
	t.Parallel()
	f := newFaultRig(t)
	f.eosCounts("eos_counts", "exactly_once_v2", 4)
	f.eosCounts("alos_counts", "at_least_once", 4)
	// Grouping by a value column goes through a repartition topic, written
	// and read inside the transactions.
	for _, g := range []string{"exactly_once_v2", "at_least_once"} {
		name := strings.SplitN(g, "_", 2)[0] + "_by_v"
		f.exec(fmt.Sprintf(`SET 'processing.guarantee'='%s';
		  CREATE TABLE %s WITH (KAFKA_TOPIC='%s') AS SELECT CAST(v %% 10 AS VARCHAR) AS m, COUNT(*) AS n FROM s GROUP BY CAST(v %% 10 AS VARCHAR);`, g, name, name))
	}
	want := f.produceEvents(3000, 40)
	byV := map[string]int{}
	for i := range 3000 {
		byV[fmt.Sprint(i%10)]++
	}
	f.awaitCounts("exactly_by_v", byV)
	f.awaitCounts("at_by_v", byV)
	eos := f.awaitCounts("eos_counts", want)
	alos := f.awaitCounts("alos_counts", want)
	for k := range want {
		if e, a := eos[k][len(eos[k])-1], alos[k][len(alos[k])-1]; e != a {
			t.Errorf("key %s: exactly_once_v2 %d, at_least_once %d", k, e, a)
		}
	}
	got := map[string]string{}
	for _, q := range f.exec("SHOW QUERIES;")[0].(api.QueriesList).Queries {
		got[q.ID] = q.ProcessingGuarantee
	}
	if got["CTAS_EOS_COUNTS_1"] != "exactly_once_v2" || got["CTAS_ALOS_COUNTS_2"] != "at_least_once" {
		t.Errorf("SHOW QUERIES guarantees: %v", got)
	}
	f.assertPull("eos_counts", want)
	if d := f.exec("EXPLAIN CTAS_EOS_COUNTS_1;")[0].(api.QueryDescriptionEntity).QueryDescription; d.ProcessingGuarantee != "exactly_once_v2" {
		t.Errorf("EXPLAIN: processing guarantee %q", d.ProcessingGuarantee)
	}
	rec := httptest.NewRecorder()
	f.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var txn []string
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if strings.HasPrefix(l, "sqlstream_query_transaction_end") {
			txn = append(txn, l)
		}
	}
	if len(txn) == 0 || !strings.Contains(strings.Join(txn, " "), "CTAS_EOS_COUNTS_1") {
		t.Errorf("no transaction metrics for the exactly_once_v2 query: %q", txn)
	}
	t.Logf("transaction ends: %s", strings.Join(txn, "; "))
	if f.markers("eos_counts") == 0 || f.markers("alos_counts") != 0 {
		t.Errorf("transaction markers: %d in the exactly_once_v2 sink, %d in the at_least_once one",
			f.markers("eos_counts"), f.markers("alos_counts"))
	}
}

// markers counts the transaction markers of topic: the offsets below the
// high watermark that hold no record.
func (f *faultRig) markers(topic string) int64 {
	f.t.Helper()
	ends, err := f.adm.ListEndOffsets(context.Background(), topic)
	if err != nil {
		f.t.Fatal(err)
	}
	var hwm int64
	ends.Each(func(o kadm.ListedOffset) { hwm += o.Offset })
	return hwm - int64(len(f.readTopic(topic, false)))
}

// failTimes makes the broker answer the first n requests of key that
// match with respond's response instead of handling them.
func (f *faultRig) failTimes(key kmsg.Key, n int, match func(kmsg.Request) bool, respond func(kmsg.Request) kmsg.Response) *atomic.Int64 {
	var failed atomic.Int64
	f.c.ControlKey(int16(key), func(req kmsg.Request) (kmsg.Response, error, bool) {
		if failed.Load() >= int64(n) {
			return nil, nil, false
		}
		f.c.KeepControl()
		if !match(req) {
			return nil, nil, false
		}
		failed.Add(1)
		return respond(req), nil, true
	})
	return &failed
}

// refuseProduceTimes refuses the first n produce requests to topic with
// TOPIC_AUTHORIZATION_FAILED (a failed produce, not retried by the
// client).
func (f *faultRig) refuseProduceTimes(topic string, n int) *atomic.Int64 {
	f.t.Helper()
	td, err := f.adm.ListTopics(context.Background(), topic)
	if err != nil || td.Error() != nil {
		f.t.Fatalf("%s: %v %v", topic, err, td.Error())
	}
	id := td[topic].ID
	return f.failTimes(kmsg.Produce, n, func(req kmsg.Request) bool {
		for _, t := range req.(*kmsg.ProduceRequest).Topics {
			if t.TopicID == id || t.Topic == topic {
				return true
			}
		}
		return false
	}, func(req kmsg.Request) kmsg.Response {
		return refusedProduce(req.(*kmsg.ProduceRequest))
	})
}

func anyRequest(kmsg.Request) bool { return true }

// eosFaultRun runs the count under exactly_once_v2 with a fault armed
// after the query started, checks that the fault hit and that no record
// was lost or counted twice: read_committed sink, pull query, and the
// changelog (a second engine on a fresh data directory restores the store
// from it and counts on).
func eosFaultRun(t *testing.T, arm func(f *faultRig) *atomic.Int64) {
	f := faultedCount(t, arm)
	f.restartEngine(t.TempDir())
	// The guarantee SET before CREATE came back with the command.
	if q := f.exec("SHOW QUERIES;")[0].(api.QueriesList).Queries; len(q) != 1 || q[0].ProcessingGuarantee != "exactly_once_v2" {
		t.Fatalf("after the restart: %+v", q)
	}
	f.produceEvents(100, 20)
	want := f.countsSoFar(620, 20)
	f.awaitCounts("counts", want)
	f.assertPull("counts", want)
}

// faultedCount runs the exactly_once_v2 count over 2 partitions, arms a
// fault once it counted, counts 500 more events and requires that the
// fault hit and that the sink and a pull query hold every count exactly.
func faultedCount(t *testing.T, arm func(f *faultRig) *atomic.Int64) *faultRig {
	f := newEOSRig(t)
	f.eosCounts("counts", "exactly_once_v2", 2)
	f.produceEvents(20, 5)
	f.awaitCounts("counts", f.countsSoFar(20, 5))
	hit := arm(f)
	f.produceEvents(500, 20)
	want := f.countsSoFar(520, 20)
	f.awaitCounts("counts", want)
	if hit.Load() == 0 {
		t.Fatal("the fault never hit")
	}
	f.assertPull("counts", want)
	return f
}

// changelogTopic is the name of the one store changelog topic there is.
func (f *faultRig) changelogTopic() string {
	f.t.Helper()
	topics, err := f.adm.ListTopics(context.Background())
	if err != nil {
		f.t.Fatal(err)
	}
	var changelog string
	for _, n := range topics.Names() {
		if strings.HasSuffix(n, "-changelog") {
			changelog = n
		}
	}
	return changelog
}

// countsSoFar is what produceEvents batches of n events in total produced
// (the first batch over 5 keys, the later ones over 20).
func (f *faultRig) countsSoFar(n, _ int) map[string]int {
	want := map[string]int{}
	add := func(n, keys int) {
		for i := range n {
			want[fmt.Sprintf("k%03d", (i*7)%keys)]++
		}
	}
	add(min(n, 20), 5)
	if n > 20 {
		add(min(n-20, 500), 20)
	}
	if n > 520 {
		add(n-520, 20)
	}
	return want
}

// TestEOSAbortOnFailedProduce: refused output records abort the
// transaction (TryAbort), which takes every write with it: output,
// changelog, store and cache; the records are processed again.
func TestEOSAbortOnFailedProduce(t *testing.T) {
	t.Parallel()
	eosFaultRun(t, func(f *faultRig) *atomic.Int64 { return f.refuseProduceTimes("counts", 3) })
}

// TestEOSAbortOnFailedEndTxn: an EndTxn answered UNKNOWN_SERVER_ERROR is
// retried as an abort.
func TestEOSAbortOnFailedEndTxn(t *testing.T) {
	t.Parallel()
	eosFaultRun(t, func(f *faultRig) *atomic.Int64 {
		return f.failTimes(kmsg.EndTxn, 2, func(req kmsg.Request) bool { return req.(*kmsg.EndTxnRequest).Commit },
			func(req kmsg.Request) kmsg.Response {
				resp := req.ResponseKind().(*kmsg.EndTxnResponse)
				resp.Version = req.GetVersion()
				resp.ErrorCode = kerr.UnknownServerError.Code
				return resp
			})
	})
}

// TestEOSAbortOnRefusedOffsets: a TxnOffsetCommit answered
// ILLEGAL_GENERATION (what a zombie gets) aborts the transaction.
func TestEOSAbortOnRefusedOffsets(t *testing.T) {
	t.Parallel()
	eosFaultRun(t, func(f *faultRig) *atomic.Int64 {
		return f.failTimes(kmsg.TxnOffsetCommit, 2, anyRequest, func(req kmsg.Request) kmsg.Response {
			tr := req.(*kmsg.TxnOffsetCommitRequest)
			resp := tr.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
			resp.Version = tr.Version
			for _, t := range tr.Topics {
				rt := kmsg.NewTxnOffsetCommitResponseTopic()
				rt.Topic = t.Topic
				for _, p := range t.Partitions {
					rp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
					rp.Partition = p.Partition
					rp.ErrorCode = kerr.IllegalGeneration.Code
					rt.Partitions = append(rt.Partitions, rp)
				}
				resp.Topics = append(resp.Topics, rt)
			}
			return resp
		})
	})
}

// TestEOSFencedSessionIsReplaced: another producer takes the query's
// transactional id (what a new instance does to a zombie): the runner's
// session is fenced, its open transaction aborted, and it makes a new
// session that fences the intruder in turn; no record is lost or counted
// twice.
func TestEOSFencedSessionIsReplaced(t *testing.T) {
	t.Parallel()
	eosFaultRun(t, func(f *faultRig) *atomic.Int64 {
		ctx := context.Background()
		txns, err := f.adm.ListTransactions(ctx, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var fenced atomic.Int64
		for _, id := range txns.TransactionalIDs() {
			if !strings.Contains(id, "query_CTAS_COUNTS_1-") {
				continue
			}
			req := kmsg.NewPtrInitProducerIDRequest()
			req.TransactionalID = &id
			req.TransactionTimeoutMillis = 10000
			resp, err := req.RequestWith(ctx, f.cl)
			if err != nil || resp.ErrorCode != 0 {
				t.Fatalf("fencing %s: %v %v", id, err, kerr.ErrorForCode(resp.ErrorCode))
			}
			fenced.Add(1)
		}
		return &fenced
	})
}

// TestEOSFailingTaskAbortsTransaction: records processed before a task
// fails, in the same transaction, are never visible read_committed (the
// output and the changelog hold them only aborted), and the query goes to
// ERROR.
func TestEOSFailingTaskAbortsTransaction(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.exec(`CREATE STREAM s (k VARCHAR KEY, ts VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1,
	    TIMESTAMP='ts', TIMESTAMP_FORMAT='yyyy-MM-dd');
	  SET 'auto.offset.reset'='earliest';
	  SET 'ksql.timestamp.throw.on.invalid'='true';
	  SET 'processing.guarantee'='exactly_once_v2';
	  SET 'cache.max.bytes.buffering'='0';
	  SET 'commit.interval.ms'='1500';
	  CREATE TABLE counts WITH (KAFKA_TOPIC='counts') AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`)
	good := func(n int) []*kgo.Record {
		var recs []*kgo.Record
		for range n {
			recs = append(recs, &kgo.Record{Topic: "s", Key: []byte("a"), Value: []byte(`{"TS":"2024-01-01"}`)})
		}
		return recs
	}
	if err := f.cl.ProduceSync(context.Background(), good(10)...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	f.awaitCounts("counts", map[string]int{"a": 10})
	// Within one transaction (the interval is 1.5 s): 5 good records,
	// whose outputs reach the broker, then one that fails the task.
	if err := f.cl.ProduceSync(context.Background(), good(5)...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(countsOf(t, f.readTopic("counts", false))["a"]) < 15 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	bad := &kgo.Record{Topic: "s", Key: []byte("a"), Value: []byte(`{"TS":"not a date"}`)}
	if err := f.cl.ProduceSync(context.Background(), bad).FirstErr(); err != nil {
		t.Fatal(err)
	}
	f.awaitError("CTAS_COUNTS_1")
	if got := countsOf(t, f.readTopic("counts", true))["a"]; len(got) != 10 || got[9] != 10 {
		t.Errorf("read_committed counts %v, want 1..10 only", got)
	}
	if got := countsOf(t, f.readTopic("counts", false))["a"]; len(got) <= 10 {
		t.Errorf("read_uncommitted counts %v: the failed transaction wrote nothing, so the test shows nothing", got)
	}
	changelog := "_confluent-ksql-default_query_CTAS_COUNTS_1-Aggregate-Aggregate-Materialize-changelog"
	if topics, _ := f.adm.ListTopics(context.Background()); !topics.Has(changelog) {
		changelog = ""
		for _, n := range topics.Names() {
			if strings.HasSuffix(n, "-changelog") {
				changelog = n
			}
		}
	}
	if n := len(f.readTopic(changelog, true)); n != 10 {
		t.Errorf("%s: %d records read_committed, want 10", changelog, n)
	}
}

// TestEOSStreamTimeSurvivesRestart: stream time travels with the committed
// offsets, so after a restart on an empty data directory (stores restored
// from their changelogs, operators new) a record for a window that closed
// before the restart is dropped as late, exactly as without the restart.
func TestEOSStreamTimeSurvivesRestart(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.exec(`CREATE STREAM clicks (u VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1);
	  SET 'auto.offset.reset'='earliest';
	  SET 'processing.guarantee'='exactly_once_v2';
	  SET 'cache.max.bytes.buffering'='0';
	  CREATE TABLE per_window WITH (KAFKA_TOPIC='per_window') AS SELECT u, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY u;`)
	at := func(ts int64) {
		t.Helper()
		rec := &kgo.Record{Topic: "clicks", Key: []byte("a"), Value: []byte(`{"V":1}`), Timestamp: time.UnixMilli(ts)}
		if err := f.cl.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	awaitOutputs := func(n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for len(f.readTopic("per_window", true)) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d outputs, want %d", len(f.readTopic("per_window", true)), n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	at(100_000)
	at(1_000) // late: stream time is 100 s, the window [0, 10 s) closed
	at(100_500)
	awaitOutputs(2)
	f.restartEngine(t.TempDir())
	at(2_000) // late again, now for a task made after the restart
	at(101_000)
	awaitOutputs(3)
	var got []int
	for _, ns := range countsOf(t, f.readTopic("per_window", true)) {
		got = append(got, ns...)
	}
	if fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("window counts %v, want [1 2 3] (only the 100 s window; the late records dropped)", got)
	}
}

// TestEOSRestoreWaitsForOpenTransaction: a restore that meets an open
// transaction on the changelog waits until it ends instead of stopping
// at the last stable offset, and skips its records once it aborted.
func TestEOSRestoreWaitsForOpenTransaction(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.eosCounts("counts", "exactly_once_v2", 1)
	f.produceEvents(20, 5)
	want := f.countsSoFar(20, 5)
	f.awaitCounts("counts", want)
	changelog := f.changelogTopic()
	f.e.Close()
	f.e = nil
	other, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.TransactionalID("intruder"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	bogus := &kgo.Record{Topic: changelog, Partition: 0, Key: []byte("k000"), Value: []byte("bogus")}
	if err := other.ProduceSync(context.Background(), bogus).FirstErr(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan time.Time, 1)
	go func() {
		time.Sleep(3 * time.Second)
		ended <- time.Now()
		if err := other.EndTransaction(context.Background(), kgo.TryAbort); err != nil {
			t.Error(err)
		}
	}()
	f.restartEngine(t.TempDir()) // restores from the changelog's start
	deadline := time.Now().Add(30 * time.Second)
	for f.exec("SHOW QUERIES;")[0].(api.QueriesList).Queries[0].State != "RUNNING" {
		if time.Now().After(deadline) {
			t.Fatal("the query never ran")
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-ended:
	default:
		t.Fatal("the query ran before the open transaction on its changelog ended")
	}
	f.produceEvents(20, 5)
	want = map[string]int{}
	for k, n := range f.countsSoFar(20, 5) {
		want[k] = 2 * n
	}
	f.awaitCounts("counts", want)
	f.assertPull("counts", want)
}
