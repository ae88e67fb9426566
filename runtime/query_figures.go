package runtime

import (
	"slices"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/metrics"
)

// A query's figures beyond its tasks' own: its global stores' (records
// loaded, lag, rows) and, after an upgrade in place (CREATE OR REPLACE),
// the counts it takes over from the query it replaced.
//
// An upgrade's counts go on: the query counters (records processed,
// processing-log entries, late and skipped records, global records
// loaded) are the same query's, and a node of the new plan counts on
// from the old plan's node of the same sub-topology, name, kind and
// topic (physical.NodeCounts.ContinueFrom) — node names are their roles
// (Source-<NAME>, Project, Aggregate-Aggregate…), so that node does the
// same job. A node the new plan adds counts from the upgrade, which
// /metrics gives (sqlstream_query_upgraded_timestamp_seconds) and the
// console shows. The counts are taken once the old runner stopped, just
// before the new one starts, so nothing the old plan counted is lost.

// continueCounts takes over the counts of the query q replaced in place
// (nothing when it replaced none); e.mu is held and the old runner has
// stopped.
func (q *query) continueCounts() {
	old := q.upgraded
	if old == nil {
		return
	}
	q.upgraded = nil
	q.processed.Store(old.processed.Load())
	q.logged.Store(old.logged.Load())
	q.late.Store(old.late.Load())
	q.skipped.Store(old.skipped.Load())
	q.globalLoaded.Store(old.globalLoaded.Load())
	added := q.nodes.ContinueFrom(old.nodes)
	if len(added) > 0 {
		q.logger().Info("upgraded query: nodes new in its plan count from the upgrade", "query", q.id, "nodes", added)
	}
	q.nodeSince = map[string]time.Time{}
	for k, at := range old.nodeSince {
		if !slices.Contains(added, k) {
			q.nodeSince[k] = at
		}
	}
	for _, k := range added {
		q.nodeSince[k] = q.upgradedAt
	}
	q.globalFigs = old.globalFigs
}

// globalStores are the figures of q's global stores on this server
// (those of its plan: figures taken over from an upgraded plan may name
// a store this one dropped).
func (q *query) globalStores() []global.StoreFigures {
	all := q.globalFigs.Snapshot(q.eng.db, q.appID)
	return slices.DeleteFunc(all, func(f global.StoreFigures) bool {
		return !slices.ContainsFunc(q.topo.Globals, func(g physical.GlobalStoreSpec) bool { return g.Name == f.Store })
	})
}

// metricsGlobals are q's global stores (with their figures here) as
// /metrics exports them.
func (q *query) metricsGlobals(here []global.StoreFigures) []metrics.GlobalStore {
	if len(q.topo.Globals) == 0 {
		return nil
	}
	figs := map[string]global.StoreFigures{}
	for _, f := range here {
		figs[f.Store] = f
	}
	out := make([]metrics.GlobalStore, 0, len(q.topo.Globals))
	for i, spec := range q.topo.Globals {
		sub, src, mat := q.topo.GlobalNodes(i)
		f, ok := figs[spec.Name]
		g := metrics.GlobalStore{Store: spec.Name, Source: src, Materialize: mat, SubTopology: sub, Lag: -1}
		if ok {
			g.Loaded, g.Lag, g.Rows, g.Bytes = f.Loaded, f.Lag(), f.Rows, f.Bytes
		}
		out = append(out, g)
	}
	return out
}

// QueryFigures are a persistent query's figures on this server, for GET
// /tasks (the console's graph and task table, gathered from every
// server of the service id): its counters, each node's records (the
// global stores' section's nodes too, as /metrics has them), its local
// store partitions' sizes and its global stores.
type QueryFigures struct {
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

// queryFigures are q's figures here.
func (e *Engine) queryFigures(q *query) QueryFigures {
	f := QueryFigures{Processed: q.processed.Load(), Logged: q.logged.Load(), Late: q.late.Load(), LogLost: e.procLog.Lost(q.id),
		Nodes: q.nodes.Snapshot(), Globals: q.globalStores(), UpgradedAt: q.upgradedAt, NodeSince: q.nodeSince}
	for _, g := range q.metricsGlobals(f.Globals) { // the global stores' section of the description
		f.Nodes = append(f.Nodes, physical.NodeCount{SubTopology: g.SubTopology, Node: g.Source, Records: g.Loaded},
			physical.NodeCount{SubTopology: g.SubTopology, Node: g.Materialize, Records: g.Loaded})
	}
	for _, id := range e.db.Stores() {
		if id.App != q.appID || slices.ContainsFunc(q.topo.Globals, func(g physical.GlobalStoreSpec) bool { return g.Name == id.Name }) {
			continue
		}
		if bytes, keys, err := e.db.ApproxSize(id); err == nil {
			f.Stores = append(f.Stores, StoreSize{Store: id.Name, Partition: id.Partition, Keys: keys, Bytes: bytes})
		}
	}
	return f
}
