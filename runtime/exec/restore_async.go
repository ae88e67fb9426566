package exec

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Restores run outside the rebalance callback, as Kafka Streams' state
// updater runs them: the callback only creates the task (RESTORING) and
// pauses its input partitions; a goroutine per task releases a standby
// replica of it, restores its stores (only the tail after their
// checkpoints), creates the task (RUNNING) and resumes its partitions.
// A long restore so holds up neither the group's rebalance nor the other
// tasks of this member. A task revoked while it restores has its restore
// cancelled and waited for before it is dropped.

// pendingRestore is one task's restore in the background.
type pendingRestore struct {
	cancel context.CancelFunc
	done   chan struct{}
	parts  map[string][]int32 // its paused input partitions
}

// startRestores pauses the inputs of the newly assigned tasks and starts
// their restores.
func (r *kafkaRunner) startRestores(cl *kgo.Client, parts map[string][]int32) {
	byTask := map[physical.TaskID]map[string][]int32{}
	for topic, ps := range parts {
		for _, p := range ps {
			k := r.tasks.keyOf(topic, p)
			if byTask[k] == nil {
				byTask[k] = map[string][]int32{}
			}
			byTask[k][topic] = append(byTask[k][topic], p)
		}
	}
	for _, k := range slices.SortedFunc(maps.Keys(byTask), compareTasks) {
		if r.tasks.state(k) != taskClosed {
			continue
		}
		if err := errors.Join(r.tasks.move(k, taskCreated), r.tasks.move(k, taskRestoring)); err != nil {
			r.fatal(err)
			return
		}
		cl.PauseFetchPartitions(byTask[k])
		ctx, cancel := context.WithCancel(context.Background())
		pr := &pendingRestore{cancel: cancel, done: make(chan struct{}), parts: byTask[k]}
		r.mu.Lock()
		if r.restoring == nil {
			r.restoring = map[physical.TaskID]*pendingRestore{}
		}
		r.restoring[k] = pr
		r.mu.Unlock()
		go r.restoreTask(ctx, cl, k, pr)
	}
	r.markRunning()
}

// restoreTask restores task k, then creates it and resumes its inputs.
func (r *kafkaRunner) restoreTask(ctx context.Context, cl *kgo.Client, k physical.TaskID, pr *pendingRestore) {
	defer close(pr.done)
	start := time.Now()
	if r.standby != nil {
		r.standby.release(k)
	}
	err := r.q.restore(ctx, r.k, k.SubTopology, k.Partition)
	if ctx.Err() != nil {
		return // revoked meanwhile: drop closes the task
	}
	if err == nil {
		err = r.tasks.activate(k)
	}
	if err != nil {
		r.fatal(errors.Join(fmt.Errorf("task %s: %w", k.String(), err), r.tasks.move(k, taskError)))
		return
	}
	r.mu.Lock()
	delete(r.restoring, k)
	if r.eos != nil {
		if r.fresh == nil {
			r.fresh = map[physical.TaskID]bool{}
		}
		r.fresh[k] = true
	}
	r.mu.Unlock()
	cl.ResumeFetchPartitions(pr.parts)
	if len(r.q.Topology.SubTopologies[k.SubTopology].Stores) > 0 {
		r.q.Logger.Info("task restored", "query", r.q.ID, "task", k.String(), "elapsed", time.Since(start).Round(time.Millisecond))
	}
	r.markRunning()
}

// firstRecords notes that task k processed records: if it just started,
// its transaction ends at once rather than at the commit interval, so
// that a task taken over (whose output paused while it moved) shows
// output again as soon as it can. r.mu is held.
func (r *kafkaRunner) firstRecords(k physical.TaskID) {
	if r.fresh[k] {
		delete(r.fresh, k)
		r.eos.release.Store(true) // the loop is processing: no poll to wake
		r.q.Logger.Debug("task processing its first records; its transaction ends at once", "query", r.q.ID, "task", k.String())
	}
}

// markRunning moves the query to RUNNING once no restore is pending.
func (r *kafkaRunner) markRunning() {
	r.mu.Lock()
	pending := len(r.restoring)
	r.mu.Unlock()
	if pending == 0 && r.failure() == nil {
		r.q.Observer.Running()
	}
}

// cancelRestores cancels and waits for the restores of the tasks of
// parts (all of them when parts is nil), resuming their partitions.
func (r *kafkaRunner) cancelRestores(cl *kgo.Client, parts map[string][]int32) {
	r.mu.Lock()
	var stop []*pendingRestore
	for k, pr := range r.restoring {
		hit := parts == nil
		for topic, ps := range parts {
			hit = hit || (r.tasks.subOf[topic] == k.SubTopology && slices.Contains(ps, k.Partition))
		}
		if hit {
			stop = append(stop, pr)
			delete(r.restoring, k)
		}
	}
	r.mu.Unlock()
	for _, pr := range stop {
		pr.cancel()
		<-pr.done
		if cl != nil {
			cl.ResumeFetchPartitions(pr.parts)
		}
	}
}

// activate creates restored task k and moves it to running, in one step
// under the set's lock (an aborted transaction's rebuild sees it either
// not yet created or running).
func (ts *taskSet) activate(k physical.TaskID) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if _, err := ts.getKeyLocked(k); err != nil {
		return err
	}
	return ts.moveLocked(k, taskRunning)
}
