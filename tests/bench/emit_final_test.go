package bench

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/broker"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The EMIT FINAL input has the shape of the kill -9 run's
// (tests/eos_crash_test.go): few keys, one event every 10 ms of event
// time, 10 s windows, so windows close all the time (every 1 000 events
// 200 windows leave the buffer) instead of all at the end.
const (
	finalEvents = 200_000
	finalKeys   = 200
	finalTopic  = "final-events"
	finalTickMS = 10
	finalSizeMS = 10_000
)

// finalEnv is a broker holding the EMIT FINAL input.
type finalEnv struct {
	b       *broker.Broker
	adm     *kadm.Client
	cl      *kgo.Client
	windows int64 // (key, window) pairs of the input: the results expected
}

func setupFinal(b *testing.B) *finalEnv {
	br, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addrs()...), kgo.ProducerBatchMaxBytes(1<<20))
	if err != nil {
		b.Fatal(err)
	}
	e := &finalEnv{b: br, adm: kadm.NewClient(cl), cl: cl}
	if _, err := e.adm.CreateTopic(context.Background(), partitions, 1, nil, finalTopic); err != nil {
		b.Fatal(err)
	}
	e.generate(b)
	return e
}

// generate produces the events and, an hour of event time later, one
// record per key, which closes every window before it (and opens one per
// key that stays open).
func (e *finalEnv) generate(b *testing.B) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	seen := map[string]bool{}
	var recs []*kgo.Record
	add := func(k string, v int, ts int64) {
		recs = append(recs, &kgo.Record{Topic: finalTopic, Key: []byte(k), Value: fmt.Appendf(nil, `{"V":%d}`, v), Timestamp: time.UnixMilli(ts)})
	}
	for j := range finalEvents {
		ts := base + int64(j)*finalTickMS
		k := fmt.Sprintf("k%03d", (j*31)%finalKeys)
		if w := fmt.Sprintf("%s@%d", k, ts-ts%finalSizeMS); !seen[w] {
			seen[w] = true
			e.windows++
		}
		add(k, j, ts)
	}
	for k := range finalKeys {
		add(fmt.Sprintf("k%03d", k), -1, base+int64(finalEvents)*finalTickMS+time.Hour.Milliseconds())
	}
	if err := e.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		b.Fatal(err)
	}
}

// finalQuery runs the tumbling EMIT FINAL count under guarantee on an
// engine of its own until its group committed the end of the input, and
// checks that the sink holds one result per window.
func (e *finalEnv) finalQuery(b *testing.B, guarantee string) txnEnds {
	ctx := context.Background()
	tag := "final_" + strings.ReplaceAll(guarantee, "_", "")
	eng, err := runtime.New(ctx, runtime.WithBootstrap(e.b.Addrs()), runtime.WithServiceID(tag+"_"),
		runtime.WithDataDir(b.TempDir()), runtime.WithLogger(slog.New(slog.DiscardHandler)),
		runtime.WithProperties(map[string]string{props.Guarantee: guarantee}))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	sink := strings.ToUpper(tag)
	ents, err := eng.Execute(ctx, api.KsqlRequest{
		Ksql: fmt.Sprintf(`CREATE STREAM fev (K VARCHAR KEY, V INT) WITH (KAFKA_TOPIC='%s', VALUE_FORMAT='JSON');
		  CREATE TABLE %s AS SELECT K, COUNT(*) AS N FROM fev
		    WINDOW TUMBLING (SIZE 10 SECONDS, GRACE PERIOD 0 SECONDS) GROUP BY K EMIT FINAL;`, finalTopic, sink),
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	id := queryID(ents)
	if id == "" {
		b.Fatalf("%s returned no query id: %#v", sink, ents)
	}
	e.waitCommitted(b, tag+"_query_"+id)
	if n := e.countCommitted(b, sink); n != e.windows {
		b.Errorf("%s: %d results, want one per window (%d)", sink, n, e.windows)
	}
	return transactionEnds(b, eng)
}

// waitCommitted waits until group has committed the end of the input.
func (e *finalEnv) waitCommitted(b *testing.B, group string) {
	ends, err := e.adm.ListEndOffsets(context.Background(), finalTopic)
	if err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		offs, err := e.adm.FetchOffsets(context.Background(), group)
		done := err == nil
		ends.Each(func(o kadm.ListedOffset) {
			if c, ok := offs.Lookup(finalTopic, o.Partition); !ok || c.At < o.Offset {
				done = false
			}
		})
		if done {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("group %s did not commit the end of %s", group, finalTopic)
}

// countCommitted counts the records of topic read_committed up to its
// last stable offsets.
func (e *finalEnv) countCommitted(b *testing.B, topic string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lso, err := e.adm.ListCommittedOffsets(ctx, topic)
	if err != nil {
		b.Fatal(err)
	}
	left := map[int32]int64{}
	lso.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	var n int64
	for len(left) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			b.Fatalf("%s: partitions %v not read to their end", topic, left)
		}
		fs.EachRecord(func(rec *kgo.Record) {
			end, ok := left[rec.Partition]
			if !ok || rec.Offset >= end {
				return
			}
			if !rec.Attrs.IsControl() {
				n++
			}
			if rec.Offset+1 >= end {
				delete(left, rec.Partition)
			}
		})
	}
	return n
}

// BenchmarkEmitFinal: a tumbling-window count with EMIT FINAL over
// 200 000 events whose windows close as they come, under at_least_once
// and exactly_once_v2: events per CPU-second of each, their ratio and how
// long transaction ends took. Run with -benchtime 1x.
func BenchmarkEmitFinal(b *testing.B) {
	e := setupFinal(b)
	defer e.b.Close()
	defer e.cl.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nTUMBLING EMIT FINAL over %d JSON events (%d partitions, %d keys, %d windows):\n", finalEvents, partitions, finalKeys, e.windows)
		rate := map[string]float64{}
		for _, g := range []string{"at_least_once", "exactly_once_v2"} {
			var ends txnEnds
			cpu0, wall0 := cpuTime(), time.Now()
			phase("final-"+g, func() { ends = e.finalQuery(b, g) })()
			cpu, wall := cpuTime()-cpu0, time.Since(wall0)
			rate[g] = float64(finalEvents) / cpu.Seconds()
			b.ReportMetric(rate[g], "final-"+g+"-events/cpu-s")
			fmt.Printf("  %-16s %9.0f events/CPU-s  (cpu %v, wall %v)", g, rate[g], cpu.Round(time.Millisecond), wall.Round(time.Millisecond))
			if ends.n > 0 {
				b.ReportMetric(float64(ends.mean.Microseconds())/1000, "final-txn-end-mean-ms")
				fmt.Printf("; %.0f transaction ends, mean %v, max %v", ends.n, ends.mean.Round(time.Microsecond), ends.peak.Round(time.Microsecond))
			}
			fmt.Println()
		}
		ratio := rate["exactly_once_v2"] / rate["at_least_once"]
		b.ReportMetric(ratio, "final-ratio-eos/alos")
		fmt.Printf("  ratio exactly_once_v2 / at_least_once: %.2f (target ≥ 0.8)\n", ratio)
	}
}
