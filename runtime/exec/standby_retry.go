package exec

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sqlstream/sqlstream/state"
)

// A replica whose feed fails (a record its store cannot apply, a fetch
// error) is never silent and never given up: every error is counted and
// kept as the last one (DESCRIBE EXTENDED shows them in errorStats,
// Engine.TaskAssignments per replica), and a failed apply is retried
// from the failed record after a backoff doubling from
// replicaRetryMin to replicaRetryMax, reset by the next apply that
// succeeds. A failed commit is retried the same way, from the offset
// after the last record applied; a store whose commit failed on a
// write failure takes nothing more until the state DB is reopened, and
// then is lost with the reopen (renew, below).

const (
	replicaRetryMin = 100 * time.Millisecond
	replicaRetryMax = 30 * time.Second
)

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
	f.r.q.Logger.Warn("standby replicas: apply or commit failed; retrying", "query", f.r.q.ID, "err", err, "errors", n, "retry_in", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	}
	if state.IsLostWithReopen(err) {
		// The state DB was reopened after a full disk and what the
		// replicas applied since their last synced write is gone: they
		// start again from their checkpoints (the fetch rewinds below).
		for _, p := range parts {
			f.renew(p)
		}
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

// renew replaces the restorer of replica p, lost with a reopen of the
// state DB (state.IsLostWithReopen), by a new one from the store's
// checkpoint (from the beginning, wiped, without one), as open makes one.
// Only the loop's goroutine uses p.rs while the loop runs.
func (f *standbyFeeder) renew(p *standbyPart) {
	_ = p.rs.Done() // lost: it takes no commit any more
	db := f.r.q.DB
	from, ok := db.Checkpointed(p.id)
	if !ok {
		if err := db.Wipe(p.id); err != nil {
			f.r.q.Logger.Warn("standby replica: cannot wipe the store to restore it again; retrying", "query", f.r.q.ID, "store", p.id.String(), "err", err)
		}
		from = 0
	}
	p.rs = db.Restorer(p.id, p.layout...)
	p.next.Store(from)
	p.committed.Store(from)
	f.r.q.Logger.Info("standby replica: restoring again from its checkpoint after local state was reopened", "query", f.r.q.ID, "store", p.id.String(), "from", from)
}
