package global

import (
	"context"
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Stores are a query's global-table stores (physical.GlobalStores,
// Kafka Streams' GlobalKTable): each is a Pebble store of its own, shared
// by every task of the query, filled from every partition of the table's
// topic before any task runs and kept current by the cluster's follower
// until the query stops. The store keeps a local checkpoint of the
// offsets it loaded (Store): a restart reads only the records after it,
// and a checkpoint out of the topic's range (the topic was deleted and
// re-created, retention removed records) wipes the store for a full
// reload.
type Stores struct {
	stores map[string]*Store
	stops  []func()
}

// Env is what a query's global stores are started with.
type Env struct {
	AppID   string
	Cache   int64 // bytes each store caches (ksql.streams.cache.max.bytes.buffering)
	DB      *state.DB
	Cluster exec.Cluster // whose Follow loads and follows each topic
	Log     physical.ProcessingLog
	OnErr   func(error) // a follower's fault after the start
	// Count counts every record loaded (may be nil).
	Count func()
	// Figures, when set, keep each store's records loaded and its
	// follower's lag (the query's, across its runs).
	Figures *Figures
	// Hook, when set, is called for every record loaded, before it is
	// applied; an error fails the load (the engine's WithGlobalLoadHook).
	Hook func(topic string, partition int32, offset int64) error
	// Clients are the global consumer's Kafka client options
	// (global.consumer.*, consumer.* and bare settings:
	// runtime/kafkasec.ReaderOptions), after the follower's own.
	Clients []kgo.Opt
}

// Start fills the stores of specs and starts following their topics; it
// returns once every store holds its topic up to the end offsets seen at
// the start, or ctx ends (nil when there are no specs).
func Start(ctx context.Context, specs []physical.GlobalStoreSpec, env Env) (*Stores, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	g := &Stores{stores: map[string]*Store{}}
	for _, spec := range specs {
		if err := g.start(ctx, spec, env); err != nil {
			g.Close()
			return nil, fmt.Errorf("global store %s: %w", spec.Name, err)
		}
	}
	return g, nil
}

func (g *Stores) start(ctx context.Context, spec physical.GlobalStoreSpec, env Env) error {
	gs, err := openStore(env.DB, state.StoreID{App: env.AppID, Name: spec.Name}, env.Cache)
	if err != nil {
		return err
	}
	g.stores[spec.Name] = gs
	gs.figs = env.Figures.of(spec.Name, spec.Topic)
	gs.figs.opened(gs)
	if gs.loader, err = spec.NewLoader(gs, env.Log); err != nil {
		return err
	}
	gs.onLoad = env.onLoad(spec.Topic)
	stop, err := env.Cluster.Follow(ctx, spec.Topic, gs, env.OnErr, env.Clients...)
	if err != nil {
		return err
	}
	g.stops = append(g.stops, stop)
	return gs.Flush()
}

// onLoad combines Hook (for topic) with Count; nil when there is
// neither.
func (env Env) onLoad(topic string) func(*physical.InRecord) error {
	hook, count := env.Hook, env.Count
	if hook == nil && count == nil {
		return nil
	}
	return func(r *physical.InRecord) error {
		if hook != nil {
			if err := hook(topic, r.Partition, r.Offset); err != nil {
				return fmt.Errorf("load hook: %w", err)
			}
		}
		if count != nil {
			count()
		}
		return nil
	}
}

// Global implements physical.GlobalStores.
func (g *Stores) Global(name string) (physical.Store, error) {
	s, ok := g.stores[name]
	if !ok {
		return nil, fmt.Errorf("unknown global store %s", name)
	}
	return s, nil
}

// Snapshot loads the store of spec up to the end offsets seen at the
// call and stops following its topic: a pull query's copy of the table.
// done closes it.
func Snapshot(ctx context.Context, spec physical.GlobalStoreSpec, env Env) (s *Store, done func(), err error) {
	g := &Stores{stores: map[string]*Store{}}
	if err := g.start(ctx, spec, env); err != nil {
		g.Close()
		return nil, nil, err
	}
	g.StopFollowing()
	return g.stores[spec.Name], g.Close, nil
}

// StopFollowing stops the followers: the stores keep what they loaded (a
// pull query's snapshot).
func (g *Stores) StopFollowing() {
	for _, stop := range g.stops {
		stop()
	}
	g.stops = nil
}

// Close stops the followers, then closes the stores (their rows and
// checkpoints committed).
func (g *Stores) Close() {
	if g == nil {
		return
	}
	g.StopFollowing()
	for _, s := range g.stores {
		s.Flush()
		s.Close()
	}
}

// Runner stops a query's runner, then its global stores.
type Runner struct {
	runner  exec.Runner
	globals *Stores
}

// Stop implements exec.Runner.
func (r Runner) Stop() error {
	err := r.runner.Stop()
	r.globals.Close()
	return err
}

// Unwrap is the query's own runner.
func (r Runner) Unwrap() exec.Runner { return r.runner }

// WithStores makes r stop g too (r itself when there are none).
func WithStores(r exec.Runner, g *Stores) exec.Runner {
	if g == nil {
		return r
	}
	return Runner{runner: r, globals: g}
}

var (
	_ physical.GlobalStores = (*Stores)(nil)
	_ exec.FollowStore      = (*Store)(nil)
	_ exec.FollowProgress   = (*Store)(nil)
	_ physical.Store        = (*Store)(nil)
	_ physical.GlobalWrites = (*Store)(nil)
)
