package figures

import (
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/metrics"
	"github.com/sqlstream/sqlstream/state"
)

// Query are a persistent query's figures on this server, for GET
// /tasks (the console's graph and task table, gathered from every
// server of the service id): its counters, each node's records (the
// global stores' section's nodes too, as /metrics has them), its local
// store partitions' sizes and its global stores.
type Query struct {
	Processed, Logged, Late int64
	LogLost                 int64 // processing-log entries lost (proclog.Log.Lost)
	Nodes                   []physical.NodeCount
	Stores                  []StoreSize
	Globals                 []global.StoreFigures
	UpgradedAt              time.Time // zero: never upgraded in place here
	// NodeSince is when each node an upgrade added started counting, by
	// "<sub-topology>/<name>" (the others count from the query's start
	// here).
	NodeSince map[string]time.Time
}

// StoreSize is one local store partition's size.
type StoreSize struct {
	Store       string
	Partition   int32
	Keys, Bytes int64
}

// WithGlobalNodes adds the nodes of the global stores' section of topo's
// description to f.Nodes: each store's source and materialization
// received the records the store loaded.
func (f *Query) WithGlobalNodes(topo *physical.Topology) {
	for _, g := range MetricsGlobals(topo, f.Globals) {
		f.Nodes = append(f.Nodes, physical.NodeCount{SubTopology: g.SubTopology, Node: g.Source, Records: g.Loaded},
			physical.NodeCount{SubTopology: g.SubTopology, Node: g.Materialize, Records: g.Loaded})
	}
}

// StoreSizes are the sizes of the local (not global) store partitions
// in db of application id app, whose topology is topo; a store whose
// size cannot be read is left out.
func StoreSizes(db *state.DB, app string, topo *physical.Topology) []StoreSize {
	var out []StoreSize
	for _, id := range db.Stores() {
		if id.App != app || isGlobal(topo, id.Name) {
			continue
		}
		if bytes, keys, err := db.ApproxSize(id); err == nil {
			out = append(out, StoreSize{Store: id.Name, Partition: id.Partition, Keys: keys, Bytes: bytes})
		}
	}
	return out
}

// GlobalStores are the figures of topo's global stores in db under
// application id app (those of its plan: figures taken over from an
// upgraded plan may name a store this one dropped).
func GlobalStores(figs *global.Figures, db *state.DB, app string, topo *physical.Topology) []global.StoreFigures {
	return slices.DeleteFunc(figs.Snapshot(db, app), func(f global.StoreFigures) bool { return !isGlobal(topo, f.Store) })
}

func isGlobal(topo *physical.Topology, store string) bool {
	return slices.ContainsFunc(topo.Globals, func(g physical.GlobalStoreSpec) bool { return g.Name == store })
}

// MetricsGlobals are topo's global stores (with their figures here) as
// /metrics exports them; a store without figures here has lag -1.
func MetricsGlobals(topo *physical.Topology, here []global.StoreFigures) []metrics.GlobalStore {
	if len(topo.Globals) == 0 {
		return nil
	}
	figs := map[string]global.StoreFigures{}
	for _, f := range here {
		figs[f.Store] = f
	}
	out := make([]metrics.GlobalStore, 0, len(topo.Globals))
	for i, spec := range topo.Globals {
		sub, src, mat := topo.GlobalNodes(i)
		f, ok := figs[spec.Name]
		g := metrics.GlobalStore{Store: spec.Name, Source: src, Materialize: mat, SubTopology: sub, Lag: -1}
		if ok {
			g.Loaded, g.Lag, g.Rows, g.Bytes = f.Loaded, f.Lag(), f.Rows, f.Bytes
		}
		out = append(out, g)
	}
	return out
}

// ContinueNodes makes nodes (the new plan's) count on from old (the
// replaced plan's) and returns when each node counts from: the old
// plan's times for the nodes it had (oldSince), upgradedAt for those the
// new plan adds (also returned, by "<sub-topology>/<name>").
func ContinueNodes(nodes, old *physical.NodeCounts, oldSince map[string]time.Time, upgradedAt time.Time) (since map[string]time.Time, added []string) {
	added = nodes.ContinueFrom(old)
	since = map[string]time.Time{}
	for k, at := range oldSince {
		if !slices.Contains(added, k) {
			since[k] = at
		}
	}
	for _, k := range added {
		since[k] = upgradedAt
	}
	return since, added
}
