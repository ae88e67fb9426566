package exec

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// PAUSE and RESUME (ksqlDB 0.28, Kafka Streams' KafkaStreams.pause): a
// paused query stops processing but stays a member of its group, keeps
// its tasks, their stores and its committed offsets, and goes on from
// there when resumed, so nothing is lost or processed twice.
//
//	Pause ──► pausing ──► the poll loop, at its next round:
//	                   PauseFetchTopics(every input topic) on the
//	                   current client (again on a client a rejoin makes)
//	                   ─► commits what it processed before (at_least_once)
//	                      or ends the open transaction (exactly_once_v2)
//	                   ─► paused: Paused() reports true
//	          rounds go on (poll, rebalances, heartbeats) but nothing is
//	          processed or punctuated and no transaction begins
//	Resume ─► resuming ─► the loop's next round: ResumeFetchTopics,
//	          processing; fetching goes on from the positions where it
//	          stopped
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

// pauseState is a Kafka runner's side of PAUSE and RESUME, an explicit
// lifecycle: Pause and Resume (any goroutine) ask, the poll loop carries
// out.
//
//	processing ──Pause──► pausing ──loop: fetches paused, committed,
//	    ▲                  │  ▲       no transaction open──► paused
//	    │               Resume Pause                           │
//	    │                  ▼  │                              Resume
//	    └──loop: fetches── resuming ◄──────────────────────────┘
//	       resumed
type pauseState uint32

const (
	processing pauseState = iota // fetching and processing
	pausing                      // asked to pause; the loop has yet to carry it out
	paused                       // the pause took effect
	resuming                     // asked to resume; the loop has yet to fetch again
)

var pauseNames = [...]string{"processing", "pausing", "paused", "resuming"}

func (s pauseState) String() string { return pauseNames[s] }

// pauseMoves lists the legal transitions.
var pauseMoves = map[pauseState][]pauseState{
	processing: {pausing},
	pausing:    {paused, resuming},
	paused:     {resuming},
	resuming:   {processing, pausing},
}

// pauseCtl holds a Kafka runner's pauseState and what the loop needs.
type pauseCtl struct {
	state  atomic.Uint32 // a pauseState
	rounds atomic.Int64
	// applied is the client whose input topics the loop paused (nil: not
	// paused); only the loop touches it.
	applied *kgo.Client

	mu   sync.Mutex
	wake context.CancelFunc // cancels the at_least_once poll in progress
}

func (c *pauseCtl) load() pauseState { return pauseState(c.state.Load()) }

// move makes the first legal transition from the current state to one
// of tos, and reports whether it made one (the current state may be one
// of tos already, or allow none of them: nothing to do).
func (c *pauseCtl) move(tos ...pauseState) bool {
	for {
		from := c.load()
		to, ok := firstLegal(from, tos)
		if !ok {
			return false
		}
		if c.state.CompareAndSwap(uint32(from), uint32(to)) {
			return true
		}
	}
}

func firstLegal(from pauseState, tos []pauseState) (pauseState, bool) {
	for _, to := range tos {
		if slices.Contains(pauseMoves[from], to) {
			return to, true
		}
	}
	return 0, false
}

// wantsPause: the loop is to keep its inputs paused.
func (c *pauseCtl) wantsPause() bool {
	s := c.load()
	return s == pausing || s == paused
}

var _ Pauser = (*kafkaRunner)(nil)

// Pause implements Pauser.
func (r *kafkaRunner) Pause() {
	if r.pause.move(pausing) {
		r.wakePoll()
	}
}

// Resume implements Pauser.
func (r *kafkaRunner) Resume() {
	if r.pause.move(resuming) {
		r.wakePoll()
	}
}

// Paused implements Pauser.
func (r *kafkaRunner) Paused() bool { return r.pause.load() == paused }

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
	if r.pause.load() == resuming {
		defer r.pause.move(processing) // unless a Pause came meanwhile
	}
	want := r.pause.wantsPause()
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

// pausedRound is an at_least_once round while paused: first (once) the
// commit of what was processed before the pause, which carries it out,
// then a poll that brings nothing (it keeps the member's rebalances
// going).
func (r *kafkaRunner) pausedRound(ctx context.Context) error {
	if r.pause.load() == pausing {
		if err := r.commit(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if len(r.dirtyOffsets()) == 0 { // else the coordinator refused them: next round
			r.settle()
		}
	}
	pctx, cancel := context.WithTimeout(ctx, r.interval)
	r.setPollWake(cancel)
	fs := r.cl.PollRecords(pctx, r.q.Config.maxPoll())
	r.setPollWake(nil)
	cancel()
	if ctx.Err() == nil && r.failure() == nil {
		r.unpolled(fs)
	}
	return nil
}

// pausedPollTimeout is how long a paused exactly_once_v2 round polls: not
// at all while the pause is being carried out (the open transaction ends
// at once), unless a join holds the transaction open; else the commit
// interval.
func (r *kafkaRunner) pausedPollTimeout() time.Duration {
	if r.pause.load() == pausing && r.eos.joining.Load() == 0 {
		return 0
	}
	return r.interval
}

// settle marks the pause carried out, unless a Resume came meanwhile.
func (r *kafkaRunner) settle() {
	if r.pause.load() == pausing && r.pause.move(paused) {
		r.q.Logger.Debug("query pause took effect", "query", r.q.ID)
	}
}
