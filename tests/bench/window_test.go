package bench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	windowMS      = 60_000 // the tumbling window's size
	windowService = "bench_window_"
	windowSink    = "PER_MINUTE"
)

// windowKey is one user's count in one window of the hand loop's map.
type windowKey struct {
	user  string
	start int64 // window start, epoch millis
}

// windowedKey is the hand loop's output key: the user followed by the
// window start as 8 big-endian bytes, the layout of a tumbling window's
// key in Kafka Streams.
func windowedKey(k windowKey) []byte {
	return binary.BigEndian.AppendUint64([]byte(k.user), uint64(k.start))
}

// tumblingLoop is what a developer would write without sqlstream: a Go
// map of counts keyed by user and one-minute window of the MS field in
// handLoop's frame. Windows are never evicted: the input spans ~17
// minutes, far less than the engine's default 24h grace, and the map
// writes no changelog. It returns the final counts.
func (e *env) tumblingLoop(b *testing.B) map[windowKey]int64 {
	counts := make(map[windowKey]int64)
	e.handLoop(b, "tumbling-loop", "hand-per-minute", numEvents, func(pv pageView, _ *kgo.Record) *kgo.Record {
		k := windowKey{user: pv.UserID, start: pv.MS - pv.MS%windowMS}
		counts[k]++
		v, _ := json.Marshal(countValue{N: counts[k]})
		return &kgo.Record{Key: windowedKey(k), Value: v, Timestamp: time.UnixMilli(pv.MS)}
	})
	return counts
}

// tumblingQuery runs the windowed count as a persistent query with event
// time from MS, on an engine whose state lives in dir, and waits for one
// output per input record. It returns the query id.
func (e *env) tumblingQuery(b *testing.B, dir string) string {
	ctx := context.Background()
	eng, err := e.engine(ctx, windowService, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	ents, err := eng.Execute(ctx, api.KsqlRequest{
		Ksql: `CREATE STREAM pv (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON', TIMESTAMP='MS');
		       CREATE TABLE per_minute AS SELECT USER_ID, COUNT(*) AS N FROM pv
		         WINDOW TUMBLING (SIZE 60 SECONDS) GROUP BY USER_ID EMIT CHANGES;`,
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	id := queryID(ents)
	if id == "" {
		b.Fatalf("CTAS %s returned no query id: %#v", windowSink, ents)
	}
	// Collapsed per window and key within a commit: wait for the input's
	// end to be committed, not for a record per input (countQuery).
	waitCommitted(b, e.adm, windowService+"query_"+id, inputTopic, numEvents)
	return id
}

// changelogOffsets sums the end offsets of query id's changelog topics.
func (e *env) changelogOffsets(b *testing.B, id string) int64 {
	topics, err := e.adm.ListTopics(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, t := range topics.Names() {
		if strings.HasPrefix(t, windowService+"query_"+id+"-") && strings.HasSuffix(t, "-changelog") {
			total += e.endOffsets(b, t)
		}
	}
	return total
}

// BenchmarkTumblingCount is issue 5's benchmark: CTAS … WINDOW TUMBLING
// (SIZE 60 SECONDS) COUNT(*) GROUP BY USER_ID on event time vs the hand
// loop with a Go map keyed by user and window. MS spreads the 1M events
// over 1M milliseconds (~17 one-minute windows). Run with -benchtime 1x;
// one iteration processes 1M events per side.
func BenchmarkTumblingCount(b *testing.B) {
	e := setup(b)
	defer e.b.Close()
	defer e.cl.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := procStatus("VmRSS:") // the broker holding the input, mostly
		resets := resetPeakRSS()
		var want map[windowKey]int64
		hand, hcpu, hwall := measure(phase("hand", func() { want = e.tumblingLoop(b) }))
		hrss := peakRSS()

		resetPeakRSS()
		var id string
		eng, ecpu, ewall := measure(phase("tumbling", func() { id = e.tumblingQuery(b, b.TempDir()) }))
		erss := peakRSS()
		b.StopTimer()
		e.checkWindows(b, want)
		changes := e.changelogOffsets(b, id)
		b.StartTimer()

		b.ReportMetric(hand, "hand-events/cpu-s")
		b.ReportMetric(eng, "engine-events/cpu-s")
		b.ReportMetric(eng/hand, "ratio")
		b.ReportMetric(kiB(hrss)/1024, "hand-peak-MiB")
		b.ReportMetric(kiB(erss)/1024, "engine-peak-MiB")

		peak := "peak RSS"
		if !resets {
			peak = "peak RSS so far" // VmHWM could not be reset: it only grows
		}
		fmt.Printf("\nWINDOW TUMBLING (SIZE 60 SECONDS) COUNT(*) GROUP BY USER_ID over %d JSON page views (%d partitions, %d keys, event time MS over %d min), changelog on:\n",
			numEvents, partitions, numKeys, numEvents/windowMS+1)
		fmt.Printf("  hand-written loop (Go map):   %9.0f events/CPU-s  (cpu %v, wall %v, %s %s)\n", hand, hcpu.Round(time.Millisecond), hwall.Round(time.Millisecond), peak, hrss)
		fmt.Printf("  sqlstream TUMBLING:           %9.0f events/CPU-s  (cpu %v, wall %v, %s %s)\n", eng, ecpu.Round(time.Millisecond), ewall.Round(time.Millisecond), peak, erss)
		fmt.Printf("  ratio engine/hand: %.2f (issue 21: ≥ 0.8)\n", eng/hand)
		fmt.Printf("  %s wrote %d changelog records; its %d outputs match the hand loop's final count of each of its %d (user, window) keys.\n", id, changes, numEvents, len(want))
		fmt.Printf("  RSS is the whole process's: the embedded broker holds every topic (input, outputs, changelogs) in it too; %s after generating the input.\n", base)
	}
}

// checkWindows reads PER_MINUTE once the engine is closed and compares it
// with the hand loop's final counts: one output per input record, and the
// last count of every (user, window) equal to the hand loop's.
func (e *env) checkWindows(b *testing.B, want map[windowKey]int64) {
	if n := e.endOffsets(b, windowSink); n != numEvents {
		b.Errorf("%s holds %d records, want one per input record (%d)", windowSink, n, numEvents)
	}
	got, err := e.lastCounts(windowSink)
	if err != nil {
		b.Fatal(err)
	}
	if len(got) != len(want) {
		b.Errorf("%s has %d (user, window) keys, the hand loop %d", windowSink, len(got), len(want))
	}
	bad := 0
	for k, n := range want {
		if got[k] != n && bad < 5 {
			bad++
			b.Errorf("%s count of %s in window %s: %d, want %d", windowSink, k.user,
				time.UnixMilli(k.start).UTC().Format(time.TimeOnly), got[k], n)
		}
	}
}

// lastCounts reads a windowed count topic (key: user + 8-byte window
// start, value {"N":…}) up to its end offsets and returns the last count
// per key. The embedded broker may stall fetches for seconds while it
// compacts changelogs, so an empty poll does not mean the end.
func (e *env) lastCounts(topic string) (map[windowKey]int64, error) {
	ends, err := e.adm.ListEndOffsets(context.Background(), topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, err
	}
	left := map[int32]int64{} // partition → end offset still to reach
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			left[o.Partition] = o.Offset
		}
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	last := make(map[windowKey]int64)
	var bad error
	for len(left) > 0 {
		fs := cl.PollRecords(ctx, 10_000)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("reading %s: partitions %v not read up to their end offsets after 2m", topic, left)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset+1 >= left[r.Partition] {
				delete(left, r.Partition)
			}
			var v countValue
			if len(r.Key) < 8 || json.Unmarshal(r.Value, &v) != nil {
				if bad == nil {
					bad = fmt.Errorf("%s offset %d/%d: key %q value %q: want user + window start, {\"N\":…}", topic, r.Partition, r.Offset, r.Key, r.Value)
				}
				return
			}
			n := len(r.Key) - 8
			last[windowKey{user: string(r.Key[:n]), start: int64(binary.BigEndian.Uint64(r.Key[n:]))}] = v.N
		})
	}
	return last, bad
}
