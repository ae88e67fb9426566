package runtime

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// A replica whose feed fails (a record its store cannot apply, a fetch
// error) is never silent and never given up: every error is counted and
// kept as the last one (DESCRIBE EXTENDED shows them in errorStats,
// Engine.TaskAssignments per replica), and a failed apply is retried
// from the failed record after a backoff doubling from
// replicaRetryMin to replicaRetryMax, reset by the next apply that
// succeeds.

const (
	replicaRetryMin = 100 * time.Millisecond
	replicaRetryMax = 30 * time.Second
)

// withReplicaFault sets a hook called before a standby or warmup replica
// applies each changelog record (store, partition, offset); an error it
// returns fails that apply as a store error would. For fault-injection
// tests (export_test.go); default none.
func withReplicaFault(f func(store string, partition int32, offset int64) error) Option {
	return optionFunc(func(o *options) { o.replicaFault = f })
}

// feedErrors counts a feeder's errors and keeps the last.
type feedErrors struct {
	mu    sync.Mutex
	count int64
	last  string
}

func (e *feedErrors) record(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.count++
	e.last = err.Error()
}

// snapshot returns the count and the last error ("" without any).
func (e *feedErrors) snapshot() (int64, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.count, e.last
}

// feedBackoff is the delay before the next retry of a failed apply.
type feedBackoff struct{ next time.Duration }

// fail returns the delay before the retry and doubles the next one.
func (b *feedBackoff) fail() time.Duration {
	d := max(b.next, replicaRetryMin)
	b.next = min(2*d, replicaRetryMax)
	return d
}

func (b *feedBackoff) reset() { b.next = 0 }

// retryAfter records a failed apply, waits the backoff and rewinds every
// replica partition to its next offset to apply (what was fetched past
// it is fetched again). It returns false when ctx ended meanwhile.
func (f *standbyFeeder) retryAfter(ctx context.Context, cl *kgo.Client, parts map[tp]*standbyPart, b *feedBackoff, err error) bool {
	f.feedErrs.record(err)
	d := b.fail()
	n, _ := f.feedErrs.snapshot()
	f.r.q.logger().Warn("standby replicas: apply failed; retrying", "query", f.r.q.id, "err", err, "errors", n, "retry_in", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	offsets := map[string]map[int32]kgo.EpochOffset{}
	for key, p := range parts {
		if offsets[key.topic] == nil {
			offsets[key.topic] = map[int32]kgo.EpochOffset{}
		}
		offsets[key.topic][key.partition] = kgo.EpochOffset{Epoch: -1, Offset: p.next.Load()}
	}
	cl.SetOffsets(offsets)
	return true
}

// replicaErrors is the feed errors of the query's replicas on this
// server, and the last one.
func (q *query) replicaErrors() (int64, string) {
	q.mu.Lock()
	r, _ := q.runner.(*kafkaRunner)
	q.mu.Unlock()
	if r == nil || r.standby == nil {
		return 0, ""
	}
	return r.standby.feedErrs.snapshot()
}
