package exec

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"
)

// PAUSE and RESUME (ksqlDB 0.28, Kafka Streams' KafkaStreams.pause): a
// paused query stops processing but stays a member of its group, keeps
// its tasks, their stores and its committed offsets, and goes on from
// there when resumed, so nothing is lost or processed twice.
//
//	Pause ──► want ──► the poll loop, at its next round:
//	                   PauseFetchTopics(every input topic) on the
//	                   current client (again on a client a rejoin makes)
//	                   ─► commits what it processed before (at_least_once)
//	                      or ends the open transaction (exactly_once_v2)
//	                   ─► settled: Paused() reports true
//	          rounds go on (poll, rebalances, heartbeats) but nothing is
//	          processed or punctuated and no transaction begins
//	Resume ─► the loop's next round: ResumeFetchTopics; fetching goes on
//	          from the positions where it stopped
//
// A topic's pause in franz-go covers the partitions a rebalance assigns
// later and is independent of the partition pauses of the tasks being
// restored (restore_async.go), so new tasks stay paused and resuming the
// query never resumes a partition still restoring.

// Pauser is a runner that can pause and resume its query's processing
// (the Kafka runners and the in-memory cluster's).
type Pauser interface {
	// Pause stops processing; it returns at once, the runner's loop
	// carries it out (Paused says when).
	Pause()
	// Resume undoes Pause.
	Resume()
	// Paused reports whether a pause has taken effect: inputs no longer
	// fetched, what was processed before committed, no transaction open.
	Paused() bool
	// PausedRounds counts the poll rounds the runner made while paused
	// (a test's fact that the loop went on without processing).
	PausedRounds() int64
}

// pauseCtl is a Kafka runner's side of Pause and Resume.
type pauseCtl struct {
	want    atomic.Bool // asked: Pause sets it, Resume clears it
	settled atomic.Bool // the loop carried the pause out
	rounds  atomic.Int64
	// applied is the client whose input topics the loop paused (nil: not
	// paused); only the loop touches it.
	applied *kgo.Client

	mu   sync.Mutex
	wake context.CancelFunc // cancels the at_least_once poll in progress
}

var _ Pauser = (*kafkaRunner)(nil)

// Pause implements Pauser.
func (r *kafkaRunner) Pause() {
	r.pause.want.Store(true)
	r.wakePoll()
}

// Resume implements Pauser.
func (r *kafkaRunner) Resume() {
	r.pause.want.Store(false)
	r.pause.settled.Store(false)
	r.wakePoll()
}

// Paused implements Pauser.
func (r *kafkaRunner) Paused() bool { return r.pause.want.Load() && r.pause.settled.Load() }

// PausedRounds implements Pauser.
func (r *kafkaRunner) PausedRounds() int64 { return r.pause.rounds.Load() }

// wakePoll ends the poll in progress, so that the loop sees a pause or
// resume at once rather than after the poll's timeout.
func (r *kafkaRunner) wakePoll() {
	if r.eos != nil {
		r.eos.hurry()
		return
	}
	r.pause.mu.Lock()
	defer r.pause.mu.Unlock()
	if r.pause.wake != nil {
		r.pause.wake()
	}
}

func (r *kafkaRunner) setPollWake(cancel context.CancelFunc) {
	r.pause.mu.Lock()
	r.pause.wake = cancel
	r.pause.mu.Unlock()
}

// syncPause makes the current client's fetching follow what was asked,
// at the start of a round (on the loop's goroutine); it reports whether
// the round is a paused one.
func (r *kafkaRunner) syncPause() bool {
	want := r.pause.want.Load()
	switch {
	case want && r.pause.applied != r.cl:
		r.cl.PauseFetchTopics(r.tasks.topics()...)
		r.pause.applied = r.cl
		r.q.Logger.Info("query paused", "query", r.q.ID)
	case !want && r.pause.applied != nil:
		if r.pause.applied == r.cl {
			r.cl.ResumeFetchTopics(r.tasks.topics()...)
		}
		r.pause.applied = nil
		r.q.Logger.Info("query resumed", "query", r.q.ID)
	}
	if want {
		r.pause.rounds.Add(1)
	}
	return want
}

// unpolled hands records a paused round's poll returned back to the
// consumer, unprocessed (every input topic is paused, so franz-go
// returns none; should one come, it is fetched again after the resume,
// not skipped).
func (r *kafkaRunner) unpolled(fs kgo.Fetches) {
	if fs.NumRecords() == 0 {
		return
	}
	offs := map[string]map[int32]kgo.EpochOffset{}
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		if len(p.Records) == 0 {
			return
		}
		if offs[p.Topic] == nil {
			offs[p.Topic] = map[int32]kgo.EpochOffset{}
		}
		first := p.Records[0]
		offs[p.Topic][p.Partition] = kgo.EpochOffset{Epoch: first.LeaderEpoch, Offset: first.Offset}
	})
	r.cl.SetOffsets(offs)
}

// pausedRound is an at_least_once round while paused: a poll that brings
// nothing (it keeps the member's rebalances going), then the commit of
// what was processed before the pause, which settles it.
func (r *kafkaRunner) pausedRound(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, r.interval)
	r.setPollWake(cancel)
	fs := r.cl.PollRecords(pctx, r.q.Config.maxPoll())
	r.setPollWake(nil)
	cancel()
	if ctx.Err() != nil || r.failure() != nil {
		return nil
	}
	r.unpolled(fs)
	if r.pause.settled.Load() || !r.pause.want.Load() {
		return nil
	}
	if err := r.commit(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	if len(r.dirtyOffsets()) == 0 { // else the coordinator refused them: next round
		r.settle()
	}
	return nil
}

// settle marks the pause carried out, unless a Resume came meanwhile.
func (r *kafkaRunner) settle() {
	if r.pause.want.Load() && r.pause.settled.CompareAndSwap(false, true) {
		r.q.Logger.Debug("query pause settled", "query", r.q.ID)
	}
}
