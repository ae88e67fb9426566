package broker

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func startTest(t *testing.T, opts ...Option) *Broker {
	t.Helper()
	b, err := Start(append([]Option{WithListen("127.0.0.1:0")}, opts...)...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func newClient(t *testing.T, b *Broker, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(b.Addrs()...),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), // produce writes partition 0
	}, opts...)...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func createTopic(t *testing.T, cl *kgo.Client, topic string, parts int32, configs map[string]*string) {
	t.Helper()
	resp, err := kadm.NewClient(cl).CreateTopic(testCtx(t), parts, 1, configs, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

func produce(t *testing.T, cl *kgo.Client, topic string, kvs ...string) {
	t.Helper()
	for i := 0; i+1 < len(kvs); i += 2 {
		r := &kgo.Record{Topic: topic, Key: []byte(kvs[i]), Value: []byte(kvs[i+1])}
		if err := cl.ProduceSync(testCtx(t), r).FirstErr(); err != nil {
			t.Fatalf("produce to %s: %v", topic, err)
		}
	}
}

// consume reads n records from the client's subscription and renders them
// as "key=value" in offset order per partition.
func consume(t *testing.T, cl *kgo.Client, n int) []string {
	t.Helper()
	ctx := testCtx(t)
	var got []string
	for len(got) < n {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consumed %d of %d records (%v): %v", len(got), n, got, err)
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Key)+"="+string(r.Value)) })
	}
	return got
}

func TestRestartKeepsTopicsRecordsAndOffsets(t *testing.T) {
	dir := t.TempDir()
	b := startTest(t, WithDataDir(dir))
	cl := newClient(t, b)
	createTopic(t, cl, "events", 2, nil)
	produce(t, cl, "events", "a", "1", "a", "2", "a", "3")

	group := newClient(t, b, kgo.ConsumeTopics("events"), kgo.ConsumerGroup("g1"),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if got := pollTwo(t, group); fmt.Sprint(got) != "[a=1 a=2]" {
		t.Fatalf("first poll: %v, want [a=1 a=2]", got)
	}
	if err := group.CommitUncommittedOffsets(testCtx(t)); err != nil {
		t.Fatalf("commit: %v", err)
	}
	group.Close()
	cl.Close()
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	b2 := startTest(t, WithDataDir(dir))
	adm := kadm.NewClient(newClient(t, b2))
	assertTopic(t, adm, "events", 2)
	assertCommitted(t, adm, "g1", "events", 0, 2)
	resumed := newClient(t, b2, kgo.ConsumeTopics("events"), kgo.ConsumerGroup("g1"))
	if got := consume(t, resumed, 1); fmt.Sprint(got) != "[a=3]" {
		t.Fatalf("resumed group read %v, want [a=3]", got)
	}
}

// pollTwo polls at most two records, so that exactly those are committed.
func pollTwo(t *testing.T, cl *kgo.Client) []string {
	t.Helper()
	var got []string
	for ctx := testCtx(t); len(got) < 2 && ctx.Err() == nil; {
		cl.PollRecords(ctx, 2-len(got)).EachRecord(func(r *kgo.Record) {
			got = append(got, string(r.Key)+"="+string(r.Value))
		})
	}
	return got
}

func assertTopic(t *testing.T, adm *kadm.Client, topic string, parts int) {
	t.Helper()
	td, err := adm.ListTopics(testCtx(t), topic)
	if err != nil {
		t.Fatalf("list topics: %v", err)
	}
	d, ok := td[topic]
	if !ok || d.Err != nil || len(d.Partitions) != parts {
		t.Fatalf("topic %s after restart: %+v (ok=%v), want %d partitions", topic, d, ok, parts)
	}
}

func assertCommitted(t *testing.T, adm *kadm.Client, group, topic string, part int32, want int64) {
	t.Helper()
	offs, err := adm.FetchOffsets(testCtx(t), group)
	if err != nil {
		t.Fatalf("fetch offsets: %v", err)
	}
	o, ok := offs.Lookup(topic, part)
	if !ok || o.At != want {
		t.Fatalf("committed offset of %s %s-%d = %+v (ok=%v), want %d", group, topic, part, o, ok, want)
	}
}

func TestAutoTopicCreationIsOff(t *testing.T) {
	b := startTest(t)
	cl := newClient(t, b, kgo.ProduceRequestTimeout(time.Second), kgo.RecordDeliveryTimeout(2*time.Second))
	err := cl.ProduceSync(testCtx(t), &kgo.Record{Topic: "nope", Value: []byte("x")}).FirstErr()
	if err == nil {
		t.Fatal("producing to a topic that was never created succeeded")
	}
	td, lerr := kadm.NewClient(cl).ListTopics(testCtx(t))
	if lerr != nil {
		t.Fatalf("list topics: %v", lerr)
	}
	if td.Has("nope") {
		t.Fatal("topic nope was auto-created")
	}
}

func TestCompactionRunsAfterRestart(t *testing.T) {
	dir := t.TempDir()
	// Tiny segments: a partition no larger than one is never compacted.
	compact := map[string]*string{"cleanup.policy": ptr("compact"), "segment.bytes": ptr("100")}
	b := startTest(t, WithDataDir(dir), WithCompactionInterval(time.Hour))
	cl := newClient(t, b)
	createTopic(t, cl, "table", 1, compact)
	// The last batch is never cleaned (it is the active one), hence x=1.
	produce(t, cl, "table", "k", "1", "k", "2", "j", "1", "k", "3", "x", "1")
	cl.Close()
	_ = b.Close()

	b2 := startTest(t, WithDataDir(dir), WithCompactionInterval(20*time.Millisecond))
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := readAll(t, b2, "table")
		if fmt.Sprint(got) == "[j=1 k=3 x=1]" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("compacted topic still holds %v, want [j=1 k=3 x=1]", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCompactionWaitsForHalfDirty: the cleaner compacts only once some
// compacted partition is larger than a segment and has at least doubled
// since its last compaction (Kafka's min.cleanable.dirty.ratio of 0.5);
// topics without compaction never count.
func TestCompactionWaitsForHalfDirty(t *testing.T) {
	b := startTest(t, WithCompactionInterval(time.Hour), WithSegmentBytes(200)) // the test drives the cleaner
	cl := newClient(t, b)
	createTopic(t, cl, "table", 1, map[string]*string{"cleanup.policy": ptr("compact,delete")})
	createTopic(t, cl, "stream", 1, nil)
	cleaned := map[string]int64{}
	if b.dirty(cleaned) {
		t.Fatal("empty topics are dirty")
	}
	produce(t, cl, "stream", "s", "1", "s", "2", "s", "3", "s", "4", "s", "5")
	if b.dirty(cleaned) {
		t.Fatal("a topic without compaction made the broker dirty")
	}
	produce(t, cl, "table", "k", "1")
	if b.dirty(cleaned) {
		t.Fatalf("a partition of %d bytes, within one segment, is dirty", b.cluster.PartitionInfo("table", 0).NumBytes)
	}
	produce(t, cl, "table", "k", "2", "k", "3", "k", "4")
	if !b.dirty(cleaned) {
		t.Fatal("a never-compacted partition with records is not dirty")
	}
	b.cluster.Compact()
	b.record(cleaned)
	size := cleaned["table/0"]
	if size == 0 || b.dirty(cleaned) {
		t.Fatalf("after compaction: recorded %v, dirty %v", cleaned, b.dirty(cleaned))
	}
	for b.cluster.PartitionInfo("table", 0).NumBytes < 2*size {
		if b.dirty(cleaned) {
			t.Fatalf("dirty at %d bytes, cleaned at %d", b.cluster.PartitionInfo("table", 0).NumBytes, size)
		}
		produce(t, cl, "table", "k", "5")
	}
	if !b.dirty(cleaned) {
		t.Fatalf("not dirty at %d bytes, cleaned at %d", b.cluster.PartitionInfo("table", 0).NumBytes, size)
	}
}

func readAll(t *testing.T, b *Broker, topic string) []string {
	t.Helper()
	cl := newClient(t, b)
	ends, err := kadm.NewClient(cl).ListEndOffsets(testCtx(t), topic)
	if err != nil {
		t.Fatalf("list end offsets: %v", err)
	}
	starts, err := kadm.NewClient(cl).ListStartOffsets(testCtx(t), topic)
	if err != nil {
		t.Fatalf("list start offsets: %v", err)
	}
	end, _ := ends.Lookup(topic, 0)
	start, _ := starts.Lookup(topic, 0)
	defer cl.Close()
	if end.Offset == start.Offset {
		return nil
	}
	cl.AddConsumeTopics(topic)
	var got []string
	ctx := testCtx(t)
	for ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		last := int64(-1)
		fs.EachRecord(func(r *kgo.Record) {
			got = append(got, string(r.Key)+"="+string(r.Value))
			last = r.Offset
		})
		if last == end.Offset-1 {
			break
		}
	}
	return got
}

func ptr(s string) *string { return &s }

func TestListenValidation(t *testing.T) {
	if _, err := Start(WithListen("no-port")); err == nil {
		t.Fatal("Start accepted listen address without a port")
	}
	b := startTest(t)
	if _, err := Start(WithListen(b.Addrs()[0])); err == nil {
		t.Fatal("Start bound an address already in use")
	}
}

func TestUnspecifiedHostAdvertisesLoopback(t *testing.T) {
	b, err := Start(WithListen("0.0.0.0:0"))
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	defer b.Close()
	addr := b.Addrs()[0]
	if len(addr) < 10 || addr[:10] != "127.0.0.1:" {
		t.Fatalf("advertised %s, want 127.0.0.1:<port>", addr)
	}
	cl := newClient(t, b)
	createTopic(t, cl, "probe", 1, nil)
	produce(t, cl, "probe", "k", "v")
}

func TestCloseReportsPersistenceFailure(t *testing.T) {
	dir := t.TempDir()
	b := startTest(t, WithDataDir(dir))
	createTopic(t, newClient(t, b), "t", 1, nil)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := b.Close()
	if err == nil || !strings.Contains(err.Error(), "embedded broker shutdown") {
		t.Fatalf("Close with an unwritable data dir returned %v", err)
	}
	if again := b.Close(); again != err {
		t.Fatalf("second Close returned %v, want the first result %v", again, err)
	}
}

// TestOldRecordsSurviveCleaning: records with ancient timestamps are kept
// (no broker-wide retention), while compaction keeps running.
func TestOldRecordsSurviveCleaning(t *testing.T) {
	b := startTest(t, WithCompactionInterval(10*time.Millisecond))
	cl := newClient(t, b)
	createTopic(t, cl, "old", 1, nil)
	createTopic(t, cl, "table", 1, map[string]*string{"cleanup.policy": ptr("compact")})
	r := &kgo.Record{Topic: "old", Key: []byte("k"), Value: []byte("v"), Timestamp: time.UnixMilli(1)}
	if err := cl.ProduceSync(testCtx(t), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if got := readAll(t, b, "old"); fmt.Sprint(got) != "[k=v]" {
		t.Fatalf("record with timestamp 1 after cleaning: %v", got)
	}
}

func TestRetentionLimit(t *testing.T) {
	b := startTest(t, WithCompactionInterval(10*time.Millisecond), WithRetention(time.Hour))
	cl := newClient(t, b)
	createTopic(t, cl, "old", 1, nil)
	r := &kgo.Record{Topic: "old", Key: []byte("k"), Value: []byte("v"), Timestamp: time.UnixMilli(1)}
	if err := cl.ProduceSync(testCtx(t), r).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// The record is gone once the log starts after it.
	adm := kadm.NewClient(cl)
	deadline := time.Now().Add(10 * time.Second)
	for {
		starts, err := adm.ListStartOffsets(testCtx(t), "old")
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := starts.Lookup("old", 0); s.Offset == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("record older than the retention limit was kept")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
