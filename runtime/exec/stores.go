package exec

import (
	"fmt"
	"sync"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// changelogSink writes a store's changelog records: the Kafka runner
// produces them (and tracks the offsets for checkpoints), the in-memory
// cluster appends them to its topics.
type changelogSink interface {
	// ts is the record's timestamp, state.NoTimestamp to let the
	// producer stamp it (see state.Changelog).
	sendChangelog(topic string, partition int32, key, value []byte, ts int64)
}

// taskStores opens the state stores of one task on demand, wiring each to
// partition p of its changelog topic, and flushes and closes them with the
// task. It implements physical.StoreProvider.
type taskStores struct {
	db        *state.DB
	appID     string
	partition int32
	specs     map[string]physical.StoreSpec
	sink      changelogSink
	cache     int64
	// transactional stores commit with the runner's Kafka transaction
	// (commitTransaction), not at flush.
	transactional bool
	// held holds the task's output records until release (at_least_once
	// in Kafka, heldOutput); nil when they go out at once.
	held *heldOutput

	mu   sync.Mutex
	open []*openStore
}

type openStore struct {
	id        state.StoreID
	changelog string
	store     state.Store
}

func newTaskStores(db *state.DB, appID string, p int32, sub *physical.SubTopology, sink changelogSink, cache int64) *taskStores {
	specs := map[string]physical.StoreSpec{}
	for _, s := range sub.Stores {
		specs[s.Name] = s
	}
	return &taskStores{db: db, appID: appID, partition: p, specs: specs, sink: sink, cache: cache}
}

// Store implements physical.StoreProvider.
func (t *taskStores) Store(name string) (physical.Store, error) {
	spec, ok := t.specs[name]
	if !ok {
		return nil, fmt.Errorf("unknown store %s", name)
	}
	id := t.id(name)
	log := changelogFunc(func(k, v []byte, ts int64) { t.sink.sendChangelog(spec.Changelog, t.partition, k, v, ts) })
	cache := t.cache
	if spec.Uncached {
		cache = 0
	}
	opts := append(layoutOptions(spec), state.WithChangelog(log), state.WithCache(cache))
	if t.transactional {
		opts = append(opts, state.Transactional())
	}
	s, err := t.db.Store(id, opts...)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.open = append(t.open, &openStore{id: id, changelog: spec.Changelog, store: s})
	t.mu.Unlock()
	return s, nil
}

func (t *taskStores) id(name string) state.StoreID {
	return state.StoreID{App: t.appID, Name: name, Partition: t.partition}
}

// flush is the commit point of the task's stores: cached writes go to the
// changelog and Pebble.
func (t *taskStores) flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.open {
		if err := s.store.Flush(); err != nil {
			return fmt.Errorf("flush %s: %w", s.id, err)
		}
	}
	return nil
}

// checkpoint records, after the producer flushed, how far each store's
// changelog partition has been written.
func (t *taskStores) checkpoint(next func(topic string, p int32) (int64, bool)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.open {
		if off, ok := next(s.changelog, t.partition); ok {
			if err := t.db.Checkpoint(s.id, off); err != nil {
				return err
			}
		}
	}
	return nil
}

// commitTransaction commits the writes of transactional stores, once the
// Kafka transaction carrying their changelog records committed, each with
// its checkpoint at how far its changelog partition has been written. The
// commits are not synced: the runner syncs once for all its tasks
// (state.DB.SyncCommits).
func (t *taskStores) commitTransaction(next func(topic string, p int32) (int64, bool)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.open {
		off, ok := next(s.changelog, t.partition)
		if !ok {
			off = -1
		}
		if err := t.db.CommitTransactionUnsynced(s.id, off); err != nil {
			return err
		}
	}
	return nil
}

func (t *taskStores) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.open {
		s.store.Close()
	}
	t.open = nil
}

// changelogFunc adapts a function to state.Changelog.
type changelogFunc func(key, value []byte, ts int64)

func (f changelogFunc) Send(key, value []byte, ts int64) { f(key, value, ts) }

// layoutOptions are the options that say how spec's store lays out its
// changelog records: a store and every Restorer of it take the same.
func layoutOptions(spec physical.StoreSpec) []state.StoreOption {
	if spec.TimestampInRecord {
		return []state.StoreOption{state.TimestampInRecord()}
	}
	return nil
}
