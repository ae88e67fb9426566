package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	numEvents  = 1_000_000
	numKeys    = 100_000
	partitions = 4
	inputTopic = "page-views"
)

// pageView is the hand loop's decoded record.
type pageView struct {
	UserID string `json:"USER_ID"`
	Page   string `json:"PAGE"`
	MS     int64  `json:"MS"`
	Agent  string `json:"AGENT"`
}

// productView is the hand loop's output record.
type productView struct {
	Page     string `json:"PAGE"`
	DoubleMS int64  `json:"DOUBLE_MS"`
	Agent    string `json:"AGENT"`
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// kafkaBroker is the broker a benchmark runs against: embedded in this
// process (*broker.Broker) or a child process (brokerProcess).
type kafkaBroker interface {
	Addrs() []string
	Close() error
}

type env struct {
	b    kafkaBroker
	adm  *kadm.Client
	cl   *kgo.Client
	want int64 // records passing the filter
}

func setup(b *testing.B) *env {
	e := setupBroker(b)
	e.generate(b)
	return e
}

// setupBroker starts the broker and creates the input topic, empty.
func setupBroker(b *testing.B) *env {
	br, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addrs()...), kgo.ProducerBatchMaxBytes(1<<20),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		b.Fatal(err)
	}
	e := &env{b: br, adm: kadm.NewClient(cl), cl: cl}
	if _, err := e.adm.CreateTopic(context.Background(), partitions, 1, nil, inputTopic); err != nil {
		b.Fatal(err)
	}
	return e
}

// generate produces the page views: ~110-byte JSON values, 100k keys,
// half of them product pages.
func (e *env) generate(b *testing.B) {
	e.produceN(b, inputTopic, numEvents, func(i int) *kgo.Record {
		user := "user_" + strconv.Itoa(i%numKeys)
		page := "/home"
		if i%2 == 0 {
			page = "/product/" + strconv.Itoa(i%997)
			e.want++
		}
		v := fmt.Sprintf(`{"USER_ID":"%s","PAGE":"%s","MS":%d,"AGENT":"Mozilla/5.0 (X11; Linux)"}`, user, page, 1_700_000_000_000+int64(i))
		return &kgo.Record{Key: []byte(user), Value: []byte(v)}
	})
}

// waitFor waits until topic holds n records.
func (e *env) waitFor(b *testing.B, topic string, n int64) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		ends, err := e.adm.ListEndOffsets(context.Background(), topic)
		if err == nil {
			var total int64
			ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
			if total >= n {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("timed out waiting for %d records in %s", n, topic)
}

// filterLoop is what a developer would write without sqlstream: a
// filter and a projection in handLoop's frame.
func (e *env) filterLoop(b *testing.B) {
	e.handLoop(b, "hand-loop", "hand-out", e.want, func(pv pageView, r *kgo.Record) *kgo.Record {
		if !strings.HasPrefix(pv.Page, "/product/") {
			return nil
		}
		v, _ := json.Marshal(productView{Page: pv.Page, DoubleMS: pv.MS * 2, Agent: pv.Agent})
		return &kgo.Record{Key: r.Key, Value: v, Timestamp: r.Timestamp}
	})
}

// engineCompression is the compression every hand loop writes its
// output with: the engine's default (compression.type unset: none, as
// Kafka's producer), not franz-go's default snappy, so a ratio compares
// the work, not a setting.
func engineCompression() kgo.Opt {
	return kgo.ProducerBatchCompression(kgo.NoCompression())
}

// handLoop is the frame of every hand-written loop: a consumer group on
// the input, encoding/json, and an async producer writing to out what
// step returns for each record (nil: nothing), flushed and committed per
// poll. It returns once out holds want records.
func (e *env) handLoop(b *testing.B, group, out string, want int64, step func(pv pageView, r *kgo.Record) *kgo.Record) {
	if _, err := e.adm.CreateTopic(context.Background(), partitions, 1, nil, out); err != nil {
		b.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.b.Addrs()...), kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(inputTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(5*time.Millisecond),
		engineCompression())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	var produced int64
	for produced < want {
		fs := cl.PollRecords(ctx, 10_000)
		fs.EachRecord(func(r *kgo.Record) {
			var pv pageView
			if json.Unmarshal(r.Value, &pv) != nil {
				return
			}
			if rec := step(pv, r); rec != nil {
				rec.Topic = out
				cl.Produce(ctx, rec, nil)
				produced++
			}
		})
		if err := cl.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		cl.CommitUncommittedOffsets(ctx)
	}
	e.waitFor(b, out, want)
}

// engineQuery runs the same pipeline as a persistent query.
func (e *env) engineQuery(b *testing.B) {
	ctx := context.Background()
	eng, err := runtime.New(ctx, runtime.WithBootstrap(e.b.Addrs()), runtime.WithDataDir(b.TempDir()),
		runtime.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.Execute(ctx, api.KsqlRequest{
		Ksql: `CREATE STREAM pageviews (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON');
		       CREATE STREAM product_views AS SELECT USER_ID, PAGE, MS * 2 AS DOUBLE_MS, AGENT
		         FROM pageviews WHERE PAGE LIKE '/product/%' EMIT CHANGES;`,
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	e.waitFor(b, "PRODUCT_VIEWS", e.want)
}

// measure runs fn and returns events per CPU-second.
func measure(fn func()) (float64, time.Duration, time.Duration) {
	cpu0, wall0 := cpuTime(), time.Now()
	fn()
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	return float64(numEvents) / cpu.Seconds(), cpu, wall
}

// BenchmarkCSASFilter is issue 2's benchmark: CSAS … WHERE vs the hand
// loop. Run with -benchtime 1x; one iteration processes 1M events.
func BenchmarkCSASFilter(b *testing.B) {
	e := setup(b)
	defer e.b.Close()
	defer e.cl.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hand, hcpu, hwall := measure(func() { e.filterLoop(b) })
		eng, ecpu, ewall := measure(func() { e.engineQuery(b) })
		b.ReportMetric(hand, "hand-events/cpu-s")
		b.ReportMetric(eng, "engine-events/cpu-s")
		b.ReportMetric(eng/hand, "ratio")
		fmt.Printf("\nCSAS … WHERE over %d JSON page views (%d partitions, %d keys):\n", numEvents, partitions, numKeys)
		fmt.Printf("  hand-written franz-go loop: %9.0f events/CPU-s  (cpu %v, wall %v)\n", hand, hcpu.Round(time.Millisecond), hwall.Round(time.Millisecond))
		fmt.Printf("  sqlstream CSAS:             %9.0f events/CPU-s  (cpu %v, wall %v)\n", eng, ecpu.Round(time.Millisecond), ewall.Round(time.Millisecond))
		fmt.Printf("  ratio engine/hand: %.2f (issue 21: ≥ 1.5)\n", eng/hand)
	}
}
