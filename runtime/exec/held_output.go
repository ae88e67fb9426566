package exec

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// heldOutput holds the records a stateful task emits under at_least_once
// until its stores' cached writes are in the changelog producer's queue
// ahead of them (taskStores.release), so a sink is never ahead of the
// state a crash restores. Before, the cache absorbed a hot key's writes
// and sent its changelog record only at the commit while the output of
// every update went out at once, and a kill -9 before the commit left
// the sink at 40 and the restored count at 1 (issue 16, point 6).
//
// The outputs follow the cache, as in Kafka Streams (whose cache
// forwards downstream only what it flushes): they are released at the
// commit, right before the stores flush, or earlier once they and the
// task's cached table updates hold as many bytes as the cache may
// (ksql.streams.cache.max.bytes.buffering), when the cache is written
// down to the changelog first. A table's updates are collapsed per key
// before they get here (physical's outputCache: the task sets
// TaskEnv.CacheOutputs), so a group updated 500 times between two
// commits writes one record, its latest, as in ksqlDB; a release
// forwards them first (Task.FlushOutputs), then writes the stores'
// caches down, then produces. A stream's outputs and repartition records
// are held but never collapsed. With a cache of 0 nothing is collapsed
// and each batch of records is released as it is processed (its
// changelog records went out with each write). exactly_once_v2 needs
// none of it (outputs and changelogs commit in one transaction), but
// collapses a table's updates all the same, till each commit
// (kafkaRunner.prepareCommit), as Kafka Streams caches under EOS too.
//
// One task's holder is used by that task's goroutine only (the worker
// processing it, or the poll loop between rounds).
type heldOutput struct {
	produce func(*kgo.Record)
	record  func(*physical.OutRecord) *kgo.Record // copies the bytes; nil: ToKgo, which keeps them
	lend    func(int) physical.Loan               // record's loans (physical.BufferLender); nil: none
	recs    []*kgo.Record
	bytes   int64
	limit   int64 // release once bytes reach it; 0: after every batch
}

var (
	_ physical.Emitter      = (*heldOutput)(nil)
	_ physical.BytesCopier  = (*heldOutput)(nil)
	_ physical.BytesCopier  = (*kafkaRunner)(nil)
	_ physical.BufferLender = (*heldOutput)(nil)
	_ physical.BufferLender = (*kafkaRunner)(nil)
)

// CopiesBytes implements physical.BytesCopier: the runner's conversion
// copies a record's bytes, ToKgo keeps them.
func (h *heldOutput) CopiesBytes() bool { return h.record != nil }

// Lend implements physical.BufferLender: the runner's loan, which its
// conversion takes back; nil when it has none (ToKgo keeps the bytes).
// A held record is its loan's until produced and called back.
func (h *heldOutput) Lend(n int) physical.Loan {
	if h.lend == nil || h.record == nil {
		return nil
	}
	return h.lend(n)
}

// Emit implements physical.Emitter: the record is converted now (the
// operator may reuse rec) and produced at the next release.
func (h *heldOutput) Emit(rec *physical.OutRecord) {
	var kr *kgo.Record
	if h.record != nil {
		kr = h.record(rec)
	} else {
		kr = ToKgo(rec)
	}
	h.recs = append(h.recs, kr)
	h.bytes += int64(len(kr.Key) + len(kr.Value) + recordOverhead)
}

// recordOverhead is a held record's bytes besides its key and value:
// the kgo.Record and its slot in recs.
const recordOverhead = int(unsafe.Sizeof(kgo.Record{})) + 8

// full reports whether the held records, with the task's cached table
// updates (cached bytes), are to be released before the commit.
func (h *heldOutput) full(cached int64) bool {
	return (len(h.recs) > 0 || cached > 0) && h.bytes+cached >= h.limit
}

// flush produces the held records in the order they were emitted.
func (h *heldOutput) flush() {
	for i, kr := range h.recs {
		h.produce(kr)
		h.recs[i] = nil
	}
	h.recs, h.bytes = h.recs[:0], 0
}

// release forwards task's cached table updates (into the held records),
// writes the cached store writes down to the changelog (not committing
// them) and then produces the held output records, when the task
// emitted any since the last release. A task holding nothing back keeps
// its cache's writes for the commit.
func (t *taskStores) release(task *physical.Task) error {
	if t.held == nil {
		return nil
	}
	if err := task.FlushOutputs(); err != nil {
		return err
	}
	if len(t.held.recs) == 0 {
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

// releaseIfFull releases task k's held outputs after a batch of records
// when they hold the cache's worth of bytes (heldOutput). Under
// exactly_once_v2, where nothing is held, a task whose cached table
// updates reach the bound forwards them into the open transaction, as
// Kafka Streams' cache evicts.
func (r *kafkaRunner) releaseIfFull(k physical.TaskID, t *taskEntry) error {
	if t.stores == nil {
		return nil
	}
	if t.stores.held == nil {
		if t.stores.transactional && t.task.CachedOutputBytes() >= r.q.Config.CacheBytes && r.q.Config.CacheBytes > 0 {
			if err := t.task.FlushOutputs(); err != nil {
				return errors.Join(&taskFailure{task: k, err: err}, r.tasks.move(k, taskError))
			}
		}
		return nil
	}
	if !t.stores.held.full(t.task.CachedOutputBytes()) {
		return nil
	}
	return r.release(k, t)
}

// release releases task k's held outputs (taskStores.release); a store
// that cannot write its cache down, or an update that fails on its way
// from the cache to the sink, fails the task, as a failed Process
// does, so a corrupt store is wiped and restored (error_class.go).
func (r *kafkaRunner) release(k physical.TaskID, t *taskEntry) error {
	if t.stores == nil {
		return nil
	}
	if err := t.stores.release(t.task); err != nil {
		return errors.Join(&taskFailure{task: k, err: err}, r.tasks.move(k, taskError))
	}
	return nil
}

// releaseOutputs releases the held outputs of every task (the poll loop
// at the commit, no task being processed).
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

// flushCachedOutputs forwards every task's cached table updates (under
// exactly_once_v2, into the transaction about to commit, before the
// stores flush theirs). An update that fails on its way fails its task,
// as a failed Process does.
func (r *kafkaRunner) flushCachedOutputs() error {
	for _, k := range r.tasks.keys() {
		if t := r.tasks.lookupKey(k); t != nil {
			if err := t.task.FlushOutputs(); err != nil {
				return errors.Join(&taskFailure{task: k, err: err}, r.tasks.move(k, taskError))
			}
		}
	}
	return nil
}
