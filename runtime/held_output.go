package runtime

import (
	"errors"
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// heldOutput holds the records a stateful task emits under at_least_once
// until its stores' cached writes are in the changelog producer's queue
// ahead of them (taskStores.release), so a sink is never ahead of the
// state a crash restores: the cache absorbs a hot key's writes and sends
// its changelog record only at a flush, while the output of every update
// would otherwise go out at once, and a kill -9 before the commit left
// the sink at 40 and the restored count at 1 (issue 16, point 6).
//
// Kafka Streams gets the same order from its cache, which forwards
// records downstream only as it flushes them; here each update keeps its
// output record, released after each batch of records the task processed
// rather than at the commit, so output latency is unchanged, and the
// cache still absorbs a batch's repeated writes to one key.
// exactly_once_v2 needs none of it: outputs and changelogs commit in one
// transaction.
//
// One task's holder is used by that task's goroutine only (the worker
// processing it, or the poll loop between rounds).
type heldOutput struct {
	produce func(*kgo.Record)
	recs    []*kgo.Record
}

var _ physical.Emitter = (*heldOutput)(nil)

// Emit implements physical.Emitter: the record is converted now (the
// operator may reuse rec) and produced at the next release.
func (h *heldOutput) Emit(rec *physical.OutRecord) {
	h.recs = append(h.recs, toKgo(rec))
}

// flush produces the held records in the order they were emitted.
func (h *heldOutput) flush() {
	for i, kr := range h.recs {
		h.produce(kr)
		h.recs[i] = nil
	}
	h.recs = h.recs[:0]
}

// release writes the cached store writes down to the changelog (not
// committing them) and then produces the held output records, when the
// task emitted any since the last release. A task holding nothing back
// keeps its cache's writes for the commit.
func (t *taskStores) release() error {
	if t.held == nil || len(t.held.recs) == 0 {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.open {
		if err := state.WriteCached(s.store); err != nil {
			return fmt.Errorf("writing the cache of %s to its changelog: %w", s.id, err)
		}
	}
	t.held.flush()
	return nil
}

// release releases task k's held outputs (taskStores.release); a store
// that cannot write its cache down fails the task, as a failed Process
// does, so a corrupt store is wiped and restored (error_class.go).
func (r *kafkaRunner) release(k taskKey, t *taskEntry) error {
	if t.stores == nil {
		return nil
	}
	if err := t.stores.release(); err != nil {
		return errors.Join(&taskFailure{task: k, err: err}, r.tasks.move(k, taskError))
	}
	return nil
}

// releaseOutputs releases the held outputs of every task (the poll loop,
// no task being processed).
func (r *kafkaRunner) releaseOutputs() error {
	for _, k := range r.tasks.keys() {
		if t := r.tasks.lookupKey(k); t != nil {
			if err := r.release(k, t); err != nil {
				return err
			}
		}
	}
	return nil
}
