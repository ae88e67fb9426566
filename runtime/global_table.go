package runtime

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/state"
)

// globalStores are a query's global-table stores (physical.GlobalStores,
// Kafka Streams' GlobalKTable): each is a Pebble store of its own, shared
// by every task of the query, filled from every partition of the table's
// topic before any task runs and kept current by the cluster's follower
// until the query stops. The store keeps a local checkpoint of the
// offsets it loaded (globalStore): a restart reads only the records after
// it, and a checkpoint out of the topic's range (the topic was deleted
// and re-created, retention removed records) wipes the store for a full
// reload.
type globalStores struct {
	stores map[string]*globalStore
	stops  []func()
}

// globalEnv is what a query's global stores are started with.
type globalEnv struct {
	appID string
	cache int64 // bytes each store caches (ksql.streams.cache.max.bytes.buffering)
	log   physical.ProcessingLog
	onErr func(error) // a follower's fault after the start
	// count counts every record loaded (may be nil).
	count func()
}

// startGlobals fills the topology's global stores and starts following
// their topics; it returns once every store holds its topic up to the end
// offsets seen at the start, or ctx ends.
func (e *Engine) startGlobals(ctx context.Context, topo *physical.Topology, env globalEnv) (*globalStores, error) {
	if len(topo.Globals) == 0 {
		return nil, nil
	}
	g := &globalStores{stores: map[string]*globalStore{}}
	for _, spec := range topo.Globals {
		if err := g.start(ctx, e, spec, env); err != nil {
			g.close()
			return nil, fmt.Errorf("global store %s: %w", spec.Name, err)
		}
	}
	return g, nil
}

func (g *globalStores) start(ctx context.Context, e *Engine, spec physical.GlobalStoreSpec, env globalEnv) error {
	gs, err := openGlobalStore(e.db, state.StoreID{App: env.appID, Name: spec.Name}, env.cache)
	if err != nil {
		return err
	}
	g.stores[spec.Name] = gs
	if gs.loader, err = spec.NewLoader(gs, env.log); err != nil {
		return err
	}
	gs.onLoad = e.globalHook(spec.Topic, env.count)
	stop, err := e.cluster.Follow(ctx, spec.Topic, gs, env.onErr)
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

// close stops the followers, then closes the stores (their rows and
// checkpoints committed).
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

// globalRunner stops a query's runner, then its global stores.
type globalRunner struct {
	runner  exec.Runner
	globals *globalStores
}

func (r globalRunner) Stop() error {
	err := r.runner.Stop()
	r.globals.close()
	return err
}

// withGlobals makes r stop g too (r itself when there are none).
func withGlobals(r exec.Runner, g *globalStores) exec.Runner {
	if g == nil {
		return r
	}
	return globalRunner{runner: r, globals: g}
}

var _ physical.GlobalStores = (*globalStores)(nil)
