// Package cluster is this server's view of the other servers of its
// service id (KLIP-12) and what is decided from it: who they are, alive
// or not, what they last reported, where each task of each query runs
// and where its replicas are (the host maps the balancer of package
// runtime/assign delivers), GET /clusterStatus, each host's state of a
// query (SHOW QUERIES, EXPLAIN), and the routing of a pull query to the
// servers holding the partitions it needs. It sees a persistent query
// only as a Query (names, topology, restoration progress, the replicas it
// keeps here) and talks to other servers through package runtime/peer; it
// never imports the engine.
//
//	assign.Observer.Placed ──► Peers: host maps per query (Place, PlaceStandbys)
//	/heartbeat, /lag ────────► Peers: heard, reported (lags, query states)
//	                             │
//	   GET /clusterStatus ◄──────┤ Status(queries)
//	   SHOW QUERIES, EXPLAIN ◄───┤ HostStates
//	   pull query ─► Route(q, Pull) ─► local partitions
//	                             └───► OpenRemotes ─► peer.OpenForward (each
//	                                   host's partitions; a host that does not
//	                                   answer fails over to the next)
//	GET /clusterTasks ─► Gather("/tasks") ─► peer.Get on every live host
//	                     at once (5 s each); a dead or silent host marked
//	GET /clusterMetrics ─► Gather("/metrics") (the same; the engine's
//	                     families kept by the binary)
//
// A task moving cooperatively is in no member's assignment between its
// revocation and the next round; meanwhile each server keeps it at its
// old owner (peers.go, carryMoving), which committed it on revocation and
// keeps its stores, so pull queries go on (a server that joined in that
// round has no old map and answers "retry" for it).
//
// A pull query on a table (route.go) reads the store partitions this
// server runs and forwards the others, grouped by host, as the same SQL
// to `/query-stream` with ksqlDB's request properties
// `request.ksql.query.pull.skip.forwarding` and
// `request.ksql.query.pull.partitions`; the peer reads only those
// partitions of its own state and forwards nothing. Which partitions a
// query needs is the engine's (a key lookup's keys' partitions, else
// all). Candidates per partition are the active host, then standbys
// (`ksql.query.pull.enable.standby.reads`, within
// `ksql.query.pull.max.allowed.offset.lag`), dead hosts skipped; the
// route is decided before the answer starts, so a partition no live host
// holds is a 400 naming it and the dead host, and every forward is
// opened, up to its answer's header, before the answer starts
// (failover.go). A standby's lag (standbys.go) is this server's own
// replica's (position against the changelog end, whatever runs the query,
// a global table's runner included) or the peer's last `/lag` report,
// summed over the task's stores, and one of unknown lag is read only
// without a lag limit. So with `num.standby.replicas` ≥ 1 and standby
// reads on, a pull query answers in full between a host's death (the
// heartbeat window, 2 s) and the move of its tasks (the session timeout):
// `tests/cluster_routing_test.go` reads both tables whole from the
// standbys 2 s after kill -9, the move coming at 5–6 s, and
// `tests/failover_test.go` scans every 300 ms on the survivors through
// the whole failover.
//
// Every `ksql.heartbeat.send.interval.ms` (100) each server POSTs
// `/heartbeat` to every peer it knows of (discovered, as in ksqlDB, from
// the queries' host maps, or from heartbeats received), and every
// `ksql.lag.reporting.send.interval.ms` (5000) `/lag` with its store lags
// and, our own, its query states (package peer's agent). A peer is alive
// while its heartbeats arrive within `ksql.heartbeat.window.ms` (2000).
// Both default on (ksqlDB: off). `/clusterStatus` (status.go) lists every
// host (`host:port`) with `hostAlive`, `lastStatusUpdateMs`,
// `activeStandbyPerQuery` (active and `standByStores`/`standByPartitions`:
// this server's replicas from its feeder, the others' from the standby
// host maps) and `hostStoreLags` (restoring actives and replicas, keyed
// `<store>/<partition>`); SHOW QUERIES' `statusCount` and EXPLAIN's
// `ksqlHostQueryStatus` count each host's state, UNRESPONSIVE for a dead
// one. A killed server is dead after the window; its tasks move after
// `ksql.streams.session.timeout.ms` (default 10 s). A host no host map
// names any more is listed dead until 30 windows after it was last heard
// from, then forgotten.
package cluster
