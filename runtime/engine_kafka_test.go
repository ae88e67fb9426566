package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/internal/testutil"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// rig is an embedded broker with an engine on it; restart keeps the
// broker's data directory.
type rig struct {
	t   testing.TB
	dir string
	b   *broker.Broker
	e   *runtime.Engine
	// opts are added to every engine the rig starts.
	opts []runtime.Option
}

func newRig(t testing.TB, opts ...runtime.Option) *rig {
	r := &rig{t: t, dir: t.TempDir(), opts: opts}
	r.startBroker()
	r.startEngine()
	t.Cleanup(func() {
		if r.e != nil {
			r.e.Close()
		}
		r.b.Close()
	})
	return r
}

func (r *rig) startBroker() {
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithDataDir(r.dir+"/broker"),
		broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		r.t.Fatal(err)
	}
	r.b = b
}

func (r *rig) startEngine() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := runtime.New(ctx, append([]runtime.Option{runtime.WithBootstrap(r.b.Addrs()), runtime.WithDataDir(r.dir + "/state"),
		runtime.WithProperties(map[string]string{props.CommitInterval: "100"}),
		runtime.WithLogger(testLogger())}, r.opts...)...)
	if err != nil {
		r.t.Fatal(err)
	}
	r.e = e
}

// testLogger discards the engine's log unless SQLSTREAM_TEST_LOG is set
// (then it goes to standard error at debug level, for a failing run).
func testLogger() *slog.Logger {
	if os.Getenv("SQLSTREAM_TEST_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (r *rig) restart() {
	r.e.Close()
	r.e = nil
	r.b.Close()
	r.startBroker()
	r.startEngine()
}

func (r *rig) exec(sql string) []api.Entity {
	r.t.Helper()
	out, err := r.e.Execute(context.Background(), api.KsqlRequest{Ksql: sql})
	if err != nil {
		r.t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// consume reads n records of topic from the beginning.
func (r *rig) consume(topic string, n int) []*kgo.Record {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []*kgo.Record
	for len(out) < n {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			r.t.Fatalf("consumed %d of %d records from %s", len(out), n, topic)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

func (r *rig) produce(topic, key, value string) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value)}).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}

// awaitCommitted waits until the group of the query with application id
// app has committed every record produced to topics so far.
func (r *rig) awaitCommitted(app string, topics ...string) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := testutil.WaitCommitted(ctx, kadm.NewClient(cl), app, topics...); err != nil {
		r.t.Fatal(err)
	}
}

func values(recs []*kgo.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, string(r.Key)+"="+string(r.Value))
	}
	return out
}

func TestCSASOverKafkaAndRestart(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM pageviews (user_id VARCHAR KEY, page VARCHAR, ms BIGINT)
	  WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON', PARTITIONS=4);`)
	out := r.exec(`CREATE STREAM product_views AS SELECT user_id, page, ms * 2 AS double_ms, UCASE(page) AS p
	  FROM pageviews WHERE page LIKE '/product/%' EMIT CHANGES;`)
	cs := out[0].(api.CommandStatusEntity)
	if cs.CommandStatus.QueryID == nil || !strings.HasPrefix(*cs.CommandStatus.QueryID, "CSAS_PRODUCT_VIEWS_") {
		t.Fatalf("unexpected status %+v", cs)
	}
	r.exec(`INSERT INTO pageviews (user_id, page, ms) VALUES ('u1', '/product/7', 10);`)
	r.produce("page-views", "u2", `{"PAGE":"/home","MS":1}`)
	r.produce("page-views", "u3", `{"page":"/product/9","ms":3}`)
	r.produce("page-views", "u4", `not json`)
	got := values(r.consume("PRODUCT_VIEWS", 2))
	want := map[string]bool{
		`u1={"PAGE":"/product/7","DOUBLE_MS":20,"P":"/PRODUCT/7"}`: true,
		`u3={"PAGE":"/product/9","DOUBLE_MS":6,"P":"/PRODUCT/9"}`:  true,
	}
	for _, g := range got {
		if !want[g] {
			t.Fatalf("unexpected output %q (all: %q)", g, got)
		}
	}
	// The bad record went to the processing log with its offset.
	plog := r.consume("default_ksql_processing_log", 1)
	if !strings.Contains(string(plog[0].Value), `"RECORDTOPIC":"page-views"`) {
		t.Fatalf("processing log entry: %s", plog[0].Value)
	}

	r.restart()
	qs := r.exec(`SHOW QUERIES;`)[0].(api.QueriesList)
	if len(qs.Queries) != 1 || qs.Queries[0].ID != *cs.CommandStatus.QueryID {
		t.Fatalf("queries after restart: %+v", qs)
	}
	r.produce("page-views", "u5", `{"PAGE":"/product/5","MS":5}`)
	got = values(r.consume("PRODUCT_VIEWS", 3))
	if len(got) != 3 || got[2] != `u5={"PAGE":"/product/5","DOUBLE_MS":10,"P":"/PRODUCT/5"}` && !contains(got, `u5={"PAGE":"/product/5","DOUBLE_MS":10,"P":"/PRODUCT/5"}`) {
		t.Fatalf("after restart: %q", got)
	}
	time.Sleep(500 * time.Millisecond)
	if extra := r.consumeAll("PRODUCT_VIEWS"); len(extra) != 3 {
		t.Fatalf("reprocessed after restart: %q", values(extra))
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// consumeAll reads a topic from the beginning up to its current end
// offsets.
func (r *rig) consumeAll(topic string) []*kgo.Record {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		r.t.Fatal(err)
	}
	var out []*kgo.Record
	left := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			r.t.Fatalf("%s: partitions %v not read to their end", topic, left)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			if end, ok := left[rec.Partition]; ok {
				out = append(out, rec)
				if rec.Offset+1 >= end {
					delete(left, rec.Partition)
				}
			}
		})
	}
	return out
}

func TestPushQueryLimit(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	r.exec(`INSERT INTO s (k, v) VALUES ('a', 1); INSERT INTO s (k, v) VALUES ('b', 2);`)
	rs, err := r.e.Query(context.Background(), `SELECT k, v * 10 AS x FROM s EMIT CHANGES LIMIT 2;`,
		map[string]any{"auto.offset.reset": "earliest"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var rows [][]any
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row.Values)
	}
	if len(rows) != 2 || rs.FinalMessage() != api.FinalLimitReached {
		t.Fatalf("rows %v final %q", rows, rs.FinalMessage())
	}
}

// TestTableAggregationRestore checks the stream/table example on
// Kafka, then a restart with intact state and one with the state dir
// deleted (the store is rebuilt from its changelog): counts continue
// exactly. The sinks are read for their latest value per key, not for a
// number of records: at_least_once may repeat records after a restart
// (what the stopping engine's last commit did not cover), and the n-th
// record read is then not the last update.
func TestTableAggregationRestore(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE TABLE customers (id VARCHAR PRIMARY KEY, tier VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=4);
	CREATE STREAM customer_events (id VARCHAR KEY, tier VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON');
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE tiers AS SELECT tier, COUNT(*) AS n FROM customers GROUP BY tier EMIT CHANGES;
	CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM customer_events GROUP BY id EMIT CHANGES;`)
	r.produce("customers", "c1", `{"TIER":"bronze"}`)
	r.produce("customers", "c2", `{"TIER":"silver"}`)
	r.produce("customers", "c1", `{"TIER":"gold"}`)
	r.awaitLatest("COUNTS", map[string]string{"c1": `{"N":2}`, "c2": `{"N":1}`})
	r.awaitLatest("TIERS", map[string]string{"bronze": `{"N":0}`, "silver": `{"N":1}`, "gold": `{"N":1}`})

	r.restart()
	r.produce("customers", "c2", `{"TIER":"gold"}`)
	r.awaitLatest("COUNTS", map[string]string{"c1": `{"N":2}`, "c2": `{"N":2}`})
	r.awaitLatest("TIERS", map[string]string{"bronze": `{"N":0}`, "silver": `{"N":0}`, "gold": `{"N":2}`})

	// Lose the local state: the stores are rebuilt from their changelogs.
	r.e.Close()
	r.e = nil
	if err := os.RemoveAll(r.dir + "/state"); err != nil {
		t.Fatal(err)
	}
	r.startEngine()
	r.produce("customers", "c1", `{"TIER":"silver"}`)
	r.awaitLatest("COUNTS", map[string]string{"c1": `{"N":3}`, "c2": `{"N":2}`})
	r.awaitLatest("TIERS", map[string]string{"bronze": `{"N":0}`, "silver": `{"N":1}`, "gold": `{"N":1}`})
}

// awaitLatest reads topic to its end until the latest value of every key
// of want is want's (and no other key has a value), failing with what it
// read after 20 s.
func (r *rig) awaitLatest(topic string, want map[string]string) {
	r.t.Helper()
	var got map[string]string
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got = map[string]string{}
		for _, rec := range r.consumeAll(topic) {
			got[string(rec.Key)] = string(rec.Value)
		}
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s: latest values %v, want %v (all: %q)", topic, got, want, values(r.consumeAll(topic)))
		}
	}
}

// TestClusterStatusReportsRestoration checks that store restoration
// progress is visible through the engine's /clusterStatus report.
func TestClusterStatusReportsRestoration(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE t AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`)
	r.produce("s", "a", `{"V":1}`)
	r.consume("T", 1)
	r.restart()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := r.e.ClusterStatus()
		for _, h := range st.ClusterStatus {
			for q, lags := range h.HostStoreLags.StateStoreLags {
				if l, ok := lags.LagByPartition["Aggregate-Aggregate-Materialize/0"]; ok && l.OffsetLag == 0 && strings.HasPrefix(q, "CTAS_T_") {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restored store in %+v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWindowCountsSurviveRestart restarts the server in the middle of a
// window: the window's count continues exactly (state restored, offsets
// resumed), and a late record is still dropped.
func TestWindowCountsSurviveRestart(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM clicks (user VARCHAR KEY, site VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=2, TIMESTAMP='ts');
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE per_window AS SELECT site, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 5 MINUTES, GRACE PERIOD 2 MINUTES) GROUP BY site;`)
	minute := func(m int) string { return fmt.Sprintf(`{"SITE":"s","TS":%d}`, m*60000) }
	r.produce("clicks", "u1", minute(0))
	r.produce("clicks", "u2", minute(1))
	// The two updates may leave as one (the cache collapses a window's
	// updates within a commit): wait for the count, not for two records.
	r.consumeUntil("PER_WINDOW", func(recs []*kgo.Record) bool {
		return slices.Contains(slices.Collect(maps.Values(lastByKey(recs))), `{"N":2}`)
	})
	r.restart()
	r.produce("clicks", "u3", minute(4))
	r.produce("clicks", "u1", minute(12)) // closes [0,5)
	r.produce("clicks", "u2", minute(2))  // late: dropped
	r.produce("clicks", "u3", minute(13))
	// The windows' last counts, once both windows have one (the
	// updates of each may leave as one, see above).
	last := lastByKey(r.consumeUntil("PER_WINDOW", func(recs []*kgo.Record) bool {
		vals := slices.Collect(maps.Values(lastByKey(recs)))
		return len(vals) == 2 && slices.Contains(vals, `{"N":3}`) && slices.Contains(vals, `{"N":2}`)
	}))
	counts := map[string]int{}
	for _, v := range last {
		counts[v]++
	}
	if counts[`{"N":3}`] != 1 || counts[`{"N":2}`] != 1 || len(last) != 2 {
		t.Fatalf("windows after restart: %v", last)
	}
}

// TestIdleWindowsCloseByWallClock: with window.close.idle.ms a quiet
// partition's EMIT FINAL windows are emitted without newer records.
func TestIdleWindowsCloseByWallClock(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	now := time.Now().UnixMilli()
	r.exec(`CREATE STREAM clicks (user VARCHAR KEY, site VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	SET 'auto.offset.reset'='earliest';
	SET 'window.close.idle.ms'='300';
	CREATE TABLE per_second AS SELECT site, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 1 SECOND, RETENTION 1 HOUR, GRACE PERIOD 0 SECONDS) GROUP BY site EMIT FINAL;`)
	r.produce("clicks", "u1", fmt.Sprintf(`{"SITE":"s","TS":%d}`, now-5000))
	r.produce("clicks", "u2", fmt.Sprintf(`{"SITE":"s","TS":%d}`, now-4999))
	recs := r.consume("PER_SECOND", 1) // no later record ever arrives
	if len(recs) != 1 || !strings.Contains(string(recs[0].Value), `"N":`) {
		t.Fatalf("final window: %q", values(recs))
	}
}

// TestMetricsExposeQueryFigures scrapes the Prometheus handler: records
// processed, late records, stream time per task and the rows out to the
// sink topic (the one window's count, not the late record) are there.
func TestMetricsExposeQueryFigures(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM clicks (user VARCHAR KEY, site VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE per_window AS SELECT user, COUNT(*) AS n FROM clicks
	  WINDOW TUMBLING (SIZE 1 MINUTE, GRACE PERIOD 0 SECONDS) GROUP BY user;`)
	r.produce("clicks", "u1", `{"SITE":"s","TS":600000}`)
	r.produce("clicks", "u1", `{"SITE":"s","TS":1000}`) // late
	r.consume("PER_WINDOW", 1)
	deadline := time.Now().Add(20 * time.Second)
	for {
		rec := httptest.NewRecorder()
		r.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body := rec.Body.String()
		if strings.Contains(body, `sqlstream_query_late_records_total{query="CTAS_PER_WINDOW_1"} 1`) &&
			strings.Contains(body, `sqlstream_task_stream_time_ms{query="CTAS_PER_WINDOW_1",task="0_0"} 600000`) &&
			strings.Contains(body, `sqlstream_task_open_windows{query="CTAS_PER_WINDOW_1",task="0_0"} 1`) &&
			strings.Contains(body, `sqlstream_query_records_out_total{query="CTAS_PER_WINDOW_1"} 1`) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics:\n%s", body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAggregatingPushQuery runs a GROUP BY push query on Kafka: its own
// repartition topic and local store, removed when the query is closed.
func TestAggregatingPushQuery(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM s (k VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	r.produce("s", "a", `{"PAGE":"x"}`)
	r.produce("s", "b", `{"PAGE":"x"}`)
	r.produce("s", "c", `{"PAGE":"y"}`)
	rs, err := r.e.Query(context.Background(), `SELECT page, COUNT(*) AS n FROM s GROUP BY page EMIT CHANGES LIMIT 3;`,
		map[string]any{"auto.offset.reset": "earliest"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	last := map[string]any{}
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		last[row.Values[0].(string)] = row.Values[1]
	}
	rs.Close()
	if fmt.Sprint(last) != "map[x:2 y:1]" {
		t.Fatalf("push aggregation: %v", last)
	}
	topics := r.exec(`SHOW ALL TOPICS;`)[0].(api.KafkaTopicsList)
	for _, tp := range topics.Topics {
		if strings.Contains(tp.Name, "transient_") {
			t.Fatalf("internal topic left behind: %s", tp.Name)
		}
	}
}

// TestCreateTopicAndQueryInOneRequest: a CREATE STREAM that creates its
// topic and a CREATE STREAM … AS SELECT on it in one request, with the
// default offset reset (latest, so the new query's group gets the current
// end offsets committed at once): both succeed and a record produced
// afterwards goes through.
func TestCreateTopicAndQueryInOneRequest(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM src (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='fresh', VALUE_FORMAT='JSON', PARTITIONS=3);
	CREATE STREAM doubled AS SELECT k, v * 2 AS w FROM src EMIT CHANGES;`)
	r.produce("fresh", "a", `{"V":21}`)
	recs := r.consume("DOUBLED", 1)
	if got := string(recs[0].Value); got != `{"W":42}` {
		t.Fatalf("DOUBLED got %s, want {\"W\":42}", got)
	}
}

// TestUpgradeReplayStartsLatestPlanOnce: a restart replays a query's
// CREATE and its CREATE OR REPLACE and starts the query once, on the
// new plan (no run of the old plan in between), from the offsets the
// upgraded query committed.
func TestUpgradeReplayStartsLatestPlanOnce(t *testing.T) {
	r := newRig(t)
	r.exec("CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	r.exec("CREATE STREAM big AS SELECT * FROM s WHERE v > 10;")
	r.exec("CREATE OR REPLACE STREAM big AS SELECT * FROM s WHERE v > 1;")
	r.produce("s", "a", `{"v":5}`)
	if got := values(r.consume("BIG", 1)); got[0] != `a={"V":5}` {
		t.Fatalf("the upgraded query wrote %v", got)
	}
	r.awaitCommitted("default_query_CSAS_BIG_1", "s")
	r.restart()
	if got := r.e.QueryStarts(); got != 1 {
		t.Fatalf("the restart started %d query runs, want 1", got)
	}
	r.produce("s", "b", `{"v":6}`)
	if got := values(r.consume("BIG", 2)); len(got) != 2 || got[1] != `b={"V":6}` {
		t.Fatalf("after the restart: %v", got)
	}
}
