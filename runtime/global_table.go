package runtime

import (
	"fmt"
	"sync"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// globalStores are a query's global-table stores (physical.GlobalStores,
// Kafka Streams' GlobalKTable): each is a Pebble store of its own, shared
// by every task of the query, filled from every partition of the table's
// topic before any task runs and kept current by the cluster's follower
// until the query stops. A start (a restart too) wipes it and reads the
// topic from the beginning again: the topic is its changelog, and no
// offsets are kept locally, so the store cannot be stale.
type globalStores struct {
	stores map[string]*globalStore
	stops  []func()
}

// startGlobals fills the topology's global stores and starts following
// their topics; onErr gets a fault of a follower (the store could not be
// written, the topic could not be read) after the start.
// Each store caches cache bytes (the query's
// ksql.streams.cache.max.bytes.buffering, as a task's store does).
func (e *Engine) startGlobals(topo *physical.Topology, appID string, cache int64, log physical.ProcessingLog, onErr func(error)) (*globalStores, error) {
	if len(topo.Globals) == 0 {
		return nil, nil
	}
	g := &globalStores{stores: map[string]*globalStore{}}
	for _, spec := range topo.Globals {
		if err := g.start(e, spec, appID, cache, log, onErr); err != nil {
			g.close()
			return nil, fmt.Errorf("global store %s: %w", spec.Name, err)
		}
	}
	return g, nil
}

func (g *globalStores) start(e *Engine, spec physical.GlobalStoreSpec, appID string, cache int64, log physical.ProcessingLog, onErr func(error)) error {
	id := state.StoreID{App: appID, Name: spec.Name}
	if err := e.db.Wipe(id); err != nil {
		return err
	}
	s, err := e.db.Store(id, state.WithCache(cache))
	if err != nil {
		return err
	}
	gs := &globalStore{store: s}
	g.stores[spec.Name] = gs
	loader, err := spec.NewLoader(gs, log)
	if err != nil {
		return err
	}
	stop, err := e.cluster.follow(spec.Topic, loader.Load, onErr)
	if err != nil {
		return err
	}
	g.stops = append(g.stops, stop)
	return gs.Flush()
}

// Global implements physical.GlobalStores.
func (g *globalStores) Global(name string) (physical.Store, error) {
	s, ok := g.stores[name]
	if !ok {
		return nil, fmt.Errorf("unknown global store %s", name)
	}
	return s, nil
}

// close stops the followers, then closes the stores.
func (g *globalStores) close() {
	if g == nil {
		return
	}
	for _, stop := range g.stops {
		stop()
	}
	for _, s := range g.stores {
		s.Flush()
		s.Close()
	}
}

// globalStore is a store written by one follower and read by every task:
// a mutex makes it safe for concurrent use (state stores are not). Its
// writes are committed every globalFlushEvery writes, to bound the batch;
// reads see them before.
type globalStore struct {
	mu     sync.Mutex
	store  state.Store
	writes int
}

const globalFlushEvery = 4096

func (s *globalStore) Get(key []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Get(key)
}

func (s *globalStore) Put(key, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.Put(key, value); err != nil {
		return err
	}
	if s.writes++; s.writes%globalFlushEvery == 0 {
		return s.store.Flush()
	}
	return nil
}

func (s *globalStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Range(start, end, fn)
}

func (s *globalStore) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Flush()
}

func (s *globalStore) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Close()
}

// globalRunner stops a query's runner, then its global stores.
type globalRunner struct {
	runner
	globals *globalStores
}

func (r globalRunner) stop() error {
	err := r.runner.stop()
	r.globals.close()
	return err
}

// withGlobals makes r stop g too (r itself when there are none).
func withGlobals(r runner, g *globalStores) runner {
	if g == nil {
		return r
	}
	return globalRunner{runner: r, globals: g}
}

var _ physical.GlobalStores = (*globalStores)(nil)
