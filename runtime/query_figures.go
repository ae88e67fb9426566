package runtime

import (
	"github.com/sqlstream/sqlstream/runtime/figures"
	"github.com/sqlstream/sqlstream/runtime/global"
)

// A query's figures beyond its tasks' own (package runtime/figures): its
// global stores' (records loaded, lag, rows) and, after an upgrade in
// place (CREATE OR REPLACE), the counts it takes over from the query it
// replaced.

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
	var added []string
	q.nodeSince, added = figures.ContinueNodes(q.nodes, old.nodes, old.nodeSince, q.upgradedAt)
	if len(added) > 0 {
		q.logger().Info("upgraded query: nodes new in its plan count from the upgrade", "query", q.id, "nodes", added)
	}
	q.globalFigs = old.globalFigs
}

// globalStores are the figures of q's global stores on this server.
func (q *query) globalStores() []global.StoreFigures {
	return figures.GlobalStores(q.globalFigs, q.eng.db, q.appID, q.topo)
}

// queryFigures are q's figures here.
func (e *Engine) queryFigures(q *query) figures.Query {
	f := figures.Query{Processed: q.processed.Load(), Logged: q.logged.Load(), Late: q.late.Load(), LogLost: e.procLog.Lost(q.id),
		Nodes: q.nodes.Snapshot(), Globals: q.globalStores(), UpgradedAt: q.upgradedAt, NodeSince: q.nodeSince,
		Stores: figures.StoreSizes(e.db, q.appID, q.topo)}
	f.WithGlobalNodes(q.topo)
	return f
}
