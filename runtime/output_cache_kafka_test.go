package runtime_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
)

// The output cache tests run at_least_once with no commit in sight (a
// 10-minute interval) and a 1 KiB cache: a table's updates are released
// only when the cached updates and held outputs fill it, after a batch
// of records. Each batch ends with fillers, distinct keys that fill it,
// so the release is a fact the test waits on (the fillers' records in
// the sink), not a timer.

// cacheRig starts a rig whose queries commit every 10 minutes, with a
// cache of cacheBytes.
func cacheRig(t *testing.T, cacheBytes string) *rig {
	return newRig(t, runtime.WithProperties(map[string]string{props.CommitInterval: "600000", props.CacheBytes: cacheBytes}))
}

// produceBatch writes the updates of key hot (one a value), then one
// record of each filler key, in one produce call, at event time ts.
func (r *rig) produceBatch(hot string, values []int, fillers []string, ts time.Time) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	var batch []*kgo.Record
	for _, v := range values {
		batch = append(batch, &kgo.Record{Topic: "ev", Key: []byte(hot), Value: fmt.Appendf(nil, `{"V":%d}`, v), Timestamp: ts})
	}
	for _, f := range fillers {
		batch = append(batch, &kgo.Record{Topic: "ev", Key: []byte(f), Value: []byte(`{"V":0}`), Timestamp: ts})
	}
	if err := cl.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}

// fillers are n keys named prefix0, prefix1, …
func fillers(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(prefix, i)
	}
	return out
}

// valuesOf returns the values of the records whose key starts with key
// ("<nil>" for a tombstone), in order.
func valuesOf(recs []*kgo.Record, key string) []string {
	var out []string
	for _, rec := range recs {
		if len(rec.Key) >= len(key) && string(rec.Key[:len(key)]) == key {
			v := string(rec.Value)
			if rec.Value == nil {
				v = "<nil>"
			}
			out = append(out, v)
		}
	}
	return out
}

func counts(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf(`{"N":%d}`, i))
	}
	return out
}

const countsDDL = `CREATE STREAM ev (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=1);
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k EMIT CHANGES;`

// TestOutputCacheCollapsesHotKey: a key counted 40 times between two
// releases writes one record to the sink, its final count, as Kafka
// Streams' cache forwards one; the fillers that filled the cache write
// theirs, and nothing else is written.
func TestOutputCacheCollapsesHotKey(t *testing.T) {
	r := cacheRig(t, "1024")
	r.exec(countsDDL)
	r.produceBatch("hot", make([]int, 40), fillers("f", 10), time.Now())
	r.consume("COUNTS", 11)
	out := r.consumeAll("COUNTS")
	if got := valuesOf(out, "hot"); !slices.Equal(got, []string{`{"N":40}`}) {
		t.Errorf("hot key wrote %v, want one record of the final count 40", got)
	}
	if len(out) != 11 {
		t.Errorf("the sink holds %d records, want 11 (the hot key's and the 10 fillers')", len(out))
	}
}

// TestOutputCacheZeroForwardsEveryUpdate: with a cache of 0 every update
// is written, as before (and as ksqlDB documents for seeing them all).
func TestOutputCacheZeroForwardsEveryUpdate(t *testing.T) {
	r := cacheRig(t, "0")
	r.exec(countsDDL)
	r.produceBatch("hot", make([]int, 40), fillers("f", 10), time.Now())
	r.consume("COUNTS", 50)
	out := r.consumeAll("COUNTS")
	if got := valuesOf(out, "hot"); !slices.Equal(got, counts(1, 40)) {
		t.Errorf("hot key wrote %v, want every count 1…40", got)
	}
}

// TestOutputCacheHavingHidesAndShows: a group shown at one release,
// hidden and shown again before the next (HAVING COUNT(*) <> 2, counts 2
// then 3), writes its new count and no delete, since the old value the
// cache forwards is the one last forwarded (shown); with a cache of 0
// the delete and the new count are both written.
func TestOutputCacheHavingHidesAndShows(t *testing.T) {
	for _, tc := range []struct {
		cache string
		want  []string
	}{
		{"1024", []string{`{"N":1}`, `{"N":3}`}},
		{"0", []string{`{"N":1}`, "<nil>", `{"N":3}`}},
	} {
		t.Run("cache="+tc.cache, func(t *testing.T) {
			r := cacheRig(t, tc.cache)
			r.exec(`CREATE STREAM ev (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=1);
			SET 'auto.offset.reset'='earliest';
			CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k HAVING COUNT(*) <> 2 EMIT CHANGES;`)
			r.produceBatch("hot", []int{1}, fillers("f", 10), time.Now())
			r.consume("COUNTS", 11)
			r.produceBatch("hot", []int{2, 3}, fillers("g", 10), time.Now())
			r.consume("COUNTS", 11+10+len(tc.want)-1)
			out := r.consumeAll("COUNTS")
			if got := valuesOf(out, "hot"); !slices.Equal(got, tc.want) {
				t.Errorf("hot key wrote %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOutputCacheWindowedEmitChanges: a windowed EMIT CHANGES
// aggregation is never cached (resolved issue 5: EMIT CHANGES emits each
// update of a window): 40 counts of one key in one hour's window write
// all 40 counts, in order, even with the cache on.
func TestOutputCacheWindowedEmitChanges(t *testing.T) {
	r := cacheRig(t, "1024")
	r.exec(`CREATE STREAM ev (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=1);
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM ev WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY k EMIT CHANGES;`)
	r.produceBatch("hot", make([]int, 40), fillers("f", 10), time.UnixMilli(3_600_000*1000+5))
	r.consume("COUNTS", 50)
	out := r.consumeAll("COUNTS")
	var want []string
	for i := 1; i <= 40; i++ {
		want = append(want, fmt.Sprintf(`{"N":%d}`, i))
	}
	if got := valuesOf(out, "hot"); !slices.Equal(got, want) {
		t.Errorf("hot key's window wrote %v, want every count 1…40", got)
	}
	if len(out) != 50 {
		t.Errorf("the sink holds %d records, want 50", len(out))
	}
}

// consumeUntil reads topic from the beginning until done holds for the
// records read so far (a table's updates collapse per commit: a test that
// means a result waits for it, not for a count of records).
func (r *rig) consumeUntil(topic string, done func([]*kgo.Record) bool) []*kgo.Record {
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
	for !done(out) {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			r.t.Fatalf("%d records of %s read, and not yet the ones awaited", len(out), topic)
		}
		out = append(out, fs.Records()...)
	}
	return out
}

// lastByKey is the last value of each key among recs.
func lastByKey(recs []*kgo.Record) map[string]string {
	last := map[string]string{}
	for _, rec := range recs {
		last[string(rec.Key)] = string(rec.Value)
	}
	return last
}
