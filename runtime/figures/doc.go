// Package figures is a persistent query's figures beyond its tasks' own,
// as GET /tasks (the console's graph and task table) and /metrics show
// them: its counters, each node's records, its local store partitions'
// sizes and its global stores' figures, and how node counts go on across
// an upgrade in place (CREATE OR REPLACE).
//
//	engine's query ──► Query (counters, physical.NodeCounts snapshot,
//	   │                      StoreSizes from state.DB,
//	   │                      GlobalStores from global.Figures)
//	   │                         │
//	   │                         └─► WithGlobalNodes (the global stores'
//	   │                              section's nodes, as /metrics has them)
//	   └─► MetricsGlobals ──► metrics.GlobalStore (/metrics)
//
//	upgrade:  old plan's NodeCounts ──► ContinueNodes ──► new NodeCounts
//	                                        └─► NodeSince (nodes the new plan adds)
//
// An upgrade's counts go on: the query counters (records processed,
// processing-log entries, late and skipped records, global records
// loaded) are the same query's, and a node of the new plan counts on
// from the old plan's node of the same sub-topology, name, kind and
// topic (physical.NodeCounts.ContinueFrom) — node names are their roles
// (Source-<NAME>, Project, Aggregate-Aggregate…), so that node does the
// same job. A node the new plan adds counts from the upgrade, which
// /metrics gives (sqlstream_query_upgraded_timestamp_seconds) and the
// console shows. The engine takes the counts once the old runner stopped,
// just before the new one starts, so nothing the old plan counted is
// lost.
//
// The package sees plain values (a topology, a store database, global
// store figures), never the engine or its query.
package figures
