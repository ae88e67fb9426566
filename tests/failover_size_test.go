package tests

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// failoverSize is how much a failover run produces: the events and their
// rate, from SQLSTREAM_FAILOVER_EVENTS and SQLSTREAM_FAILOVER_RATE
// (12 000 at 300 a second by default). Every wait that depends on the
// volume derives from it.
type failoverSize struct {
	events    int
	perSecond int
}

func failoverSizeFromEnv(t *testing.T) failoverSize {
	t.Helper()
	s := failoverSize{events: 12_000, perSecond: 300}
	for _, v := range []struct {
		name string
		to   *int
	}{{"SQLSTREAM_FAILOVER_EVENTS", &s.events}, {"SQLSTREAM_FAILOVER_RATE", &s.perSecond}} {
		raw := os.Getenv(v.name)
		if raw == "" {
			continue
		}
		n, err := strconv.Atoi(raw)
		if err != nil || n <= 0 {
			t.Fatalf("%s=%q: want a positive integer", v.name, raw)
		}
		*v.to = n
	}
	return s
}

// killAt is how many events are produced before the kill: 30 %, which is
// 12 s into the default run, so the moved tasks and the fourth server's
// join still see events flowing.
func (s failoverSize) killAt() int { return s.events * 3 / 10 }

// producing is how long the production takes at the asked rate.
func (s failoverSize) producing() time.Duration {
	return time.Duration(s.events) * time.Second / time.Duration(s.perSecond)
}

// countingLimit bounds the wait, after the production, until every event
// is counted: 3 minutes, or the time to count them at 1 000 a second if
// longer (1M events: about 17 minutes).
func (s failoverSize) countingLimit() time.Duration {
	return max(3*time.Minute, time.Duration(s.events)*time.Millisecond)
}

// sinkRead bounds one read of the counts topic: 30 s plus 50 µs an
// event (1M events: 80 s).
func (s failoverSize) sinkRead() time.Duration {
	return 30*time.Second + time.Duration(s.events)*50*time.Microsecond
}

// batch is the records per produce request: 50, or a twentieth of the
// rate if more, so a fast run sends 20 requests a second.
func (s failoverSize) batch() int { return max(50, s.perSecond/20) }

// produce writes size.events events at about size.perSecond, pacing
// against the start time (a slow request is caught up on), counting them
// in r.produced (r.producedAll once done), and returns the count per key on done.
func (r *haRun) produce(size failoverSize, done chan<- map[string]int) {
	cl := kafkaClient(r.t, r.br.Kafka)
	want := map[string]int{}
	batch := size.batch()
	start := time.Now()
	for i := 0; i < size.events; i += batch {
		var recs []*kgo.Record
		for j := i; j < min(i+batch, size.events); j++ {
			k := fmt.Sprintf("k%03d", (j*31)%haKeys)
			want[k]++
			recs = append(recs, &kgo.Record{Topic: "ev", Key: []byte(k), Value: fmt.Appendf(nil, `{"V":%d}`, j)})
		}
		if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
			r.t.Error(err)
		}
		r.produced.Store(int64(i + len(recs)))
		time.Sleep(time.Until(start.Add(time.Duration(i+len(recs)) * time.Second / time.Duration(size.perSecond))))
	}
	r.producedAll.Store(true)
	took := time.Since(start)
	r.t.Logf("produced %d events in %v: %.0f a second (asked %d)", size.events, took.Round(10*time.Millisecond),
		float64(size.events)/took.Seconds(), size.perSecond)
	done <- want
}

// awaitProduced waits until n events are produced.
func (r *haRun) awaitProduced(n int) {
	for r.produced.Load() < int64(n) {
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitCounted waits, at most limit, until the query's group committed
// every partition of ev to its end: under exactly_once_v2 the counts of
// every event are then committed too. It logs how long it waited.
func (r *haRun) awaitCounted(limit time.Duration) {
	r.t.Helper()
	start := time.Now()
	eventuallyWithin(r.t, "every event counted", limit, func() error {
		ctx := context.Background()
		ends, err := r.adm.ListEndOffsets(ctx, "ev")
		if err != nil {
			return err
		}
		committed, err := r.adm.FetchOffsets(ctx, r.group)
		if err != nil {
			return err
		}
		var left int64
		ends.Each(func(o kadm.ListedOffset) {
			c, _ := committed.Lookup("ev", o.Partition)
			left += o.Offset - max(c.At, 0)
		})
		if left > 0 {
			time.Sleep(time.Second) // leave the CPU to the servers
			return fmt.Errorf("%d events not counted yet", left)
		}
		return nil
	})
	r.t.Logf("every event counted (the check waited %v)", time.Since(start).Round(100*time.Millisecond))
}

// tally sums the records lost and counted twice over every key: a final
// count below want's, above it, or a count sequence that repeats or goes
// back (a reprocessed record made visible).
func tally(got map[string][]int, want map[string]int) (lost, dup int) {
	for k, n := range want {
		s := got[k]
		final := 0
		if len(s) > 0 {
			final = s[len(s)-1]
		}
		lost += max(n-final, 0)
		dup += max(final-n, 0)
		for i := 1; i < len(s); i++ {
			if s[i] <= s[i-1] {
				dup++
			}
		}
	}
	return lost, dup
}
