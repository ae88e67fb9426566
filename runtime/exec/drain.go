package exec

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// An in-place upgrade (CREATE OR REPLACE) stops the old runner and starts
// the new plan in the same group, from the committed offsets. The
// sub-topologies of a query feed each other through internal topics (a
// GROUP BY's repartition topic, a foreign-key join's subscription and
// response topics) whose records hold the columns the old plan's upper
// sub-topology reads: a record the old plan's source side wrote but its
// aggregate side had not processed when it stopped would be read by the
// new plan, which finds the columns it added (the argument of an added
// aggregate) missing: NULL. COLLECT_LIST(user) would collect a NULL for
// it, and an added aggregate is meant to start from its initial value
// and count only records the new plan reads from the sources. So the
// old runner drains before it stops:
//
//	StopDrained ─► draining: the loop, at its next round, pauses the
//	               fetches of the source topics (on the current client
//	               and on one a rejoin makes), then each round commits
//	               (what the source side produced is flushed first) and
//	               compares the group's committed offsets with the ends
//	               of the internal topics' partitions this runner's
//	               tasks read
//	            ─► drained once every one is committed to its end (the
//	               ends are read after the flush: nothing written by
//	               this runner before is still on its way)
//	            ─► Stop
//
// A paused query processes nothing, so it is stopped at once (its
// internal topics keep what they hold), as is a query without internal
// topics. Under exactly_once_v2 the old runner stops without draining
// (left: its internal records become readable only once its
// transaction ends).

// Drainer is a runner that can finish what its query's internal topics
// hold before it stops (the at_least_once Kafka runner).
type Drainer interface {
	Runner
	// StopDrained stops reading the sources, processes and commits
	// every record its tasks' internal topic partitions hold, then
	// stops as Stop does. When ctx ends first it stops without
	// finishing, and says so.
	StopDrained(ctx context.Context) error
}

var _ Drainer = (*kafkaRunner)(nil)

// drainCtl is a Kafka runner's side of StopDrained: asked on any
// goroutine, carried out by the loop.
type drainCtl struct {
	asked   atomic.Bool
	applied *kgo.Client // the client whose source fetches are paused; the loop's
	once    sync.Once
	done    chan struct{} // closed once drained
	err     error         // why the drain could not be checked, before done closes
}

// StopDrained implements Drainer.
func (r *kafkaRunner) StopDrained(ctx context.Context) error {
	if r.eos != nil || r.pause.wantsPause() || len(r.internalInputs()) == 0 {
		return r.Stop()
	}
	r.drain.asked.Store(true)
	r.wakePoll()
	var err error
	select {
	case <-r.drain.done:
		err = r.drain.err
	case <-r.done:
	case <-ctx.Done():
		err = fmt.Errorf("query %s: stopped before its internal topics were drained (%w): the records left in them are read by the next plan, which sees a column it added as NULL", r.q.ID, ctx.Err())
	}
	if stopErr := r.Stop(); stopErr != nil {
		return stopErr
	}
	return err
}

// internalInputs are the topics the query's tasks read that it writes
// itself (InputTopics less SourceTopics).
func (r *kafkaRunner) internalInputs() []string {
	sources := r.q.Topology.SourceTopics()
	var out []string
	for _, t := range r.q.Topology.InputTopics() {
		if !slices.Contains(sources, t) {
			out = append(out, t)
		}
	}
	return out
}

// drainRound is the loop's part of a drain asked for, before a round:
// it pauses the source fetches, commits and reports the drain done once
// the internal partitions this runner reads are committed to their ends.
func (r *kafkaRunner) drainRound(ctx context.Context) error {
	if !r.drain.asked.Load() {
		return nil
	}
	select {
	case <-r.drain.done:
		return nil
	default:
	}
	if r.drain.applied != r.cl {
		r.cl.PauseFetchTopics(r.q.Topology.SourceTopics()...)
		r.drain.applied = r.cl
	}
	if err := r.commit(ctx); err != nil {
		return err
	}
	ok, err := r.drained(ctx)
	if err != nil {
		r.finishDrain(err)
		return nil
	}
	if ok {
		r.finishDrain(nil)
	}
	return nil
}

func (r *kafkaRunner) finishDrain(err error) {
	r.drain.once.Do(func() {
		r.drain.err = err
		close(r.drain.done)
	})
}

// drained reports whether the group committed every internal partition
// this runner's tasks read up to its end.
func (r *kafkaRunner) drained(ctx context.Context) (bool, error) {
	topics := r.internalInputs()
	ends, err := r.k.EndOffsets(ctx, topics...)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return false, fmt.Errorf("query %s: cannot list the end offsets of its internal topics %v to drain them: %w", r.q.ID, topics, err)
	}
	committed, err := r.k.CommittedOffsets(ctx, r.q.AppID)
	if err == nil {
		err = committed.Error()
	}
	if err != nil {
		return false, fmt.Errorf("query %s: cannot read its committed offsets to drain its internal topics: %w", r.q.ID, err)
	}
	ok := true
	ends.Each(func(e kadm.ListedOffset) {
		if r.tasks.lookup(e.Topic, e.Partition) == nil {
			return // another server's task drains it
		}
		at := int64(0) // never committed: read from its start
		if c, found := committed.Lookup(e.Topic, e.Partition); found {
			at = c.At
		}
		if at < e.Offset {
			ok = false
		}
	})
	return ok, nil
}
