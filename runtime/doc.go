// Package runtime is sqlstream's engine: it executes statements, keeps the
// catalog, runs persistent and transient queries as tasks over Kafka, and
// makes persistent queries survive restarts through the command topic.
//
//	Execute(stmt) ─► parser ─► planner ─► physical.Build ─► exec.Cluster.Start
//	     │                                                      │
//	     ▼                                                      ▼
//	command topic  (_<service-id>_command_topic,      runtime/exec: one
//	replayed on start: same query ids,                consumer group per
//	same consumer groups, same offsets)               query (<service-id>
//	                                                  query_<ID>), a task per
//	                                                  partition, flush then
//	                                                  commit every interval
//
// Several servers of one service id form one cluster: each follows the
// command topic continuously and applies every command in topic order
// (package commandlog; appends are serialized by a transactional
// producer fencing on the service id; each record is signed and chained
// to the one before, so only the next record of the chain runs and a
// server that cannot verify the topic refuses to start: commandlog/chain.go),
// and each runs every persistent query, its consumer group splitting the
// query's tasks between them
// (package runtime/assign: whole tasks, sticky, cooperative, by
// num.stream.threads). With num.standby.replicas the balancer also
// places standby replicas on other servers, kept warm from the changelogs
// (exec's standby.go), and moves a task only to a caught-up server,
// warming the new one up first; Engine.TaskAssignments reports each
// server's active, standby and warmup tasks and their lag
// (task_assignment.go).
//
// What runs a topology is package runtime/exec (see its doc): the
// exec.Cluster interface has two implementations, exec.Kafka (franz-go,
// for the server) and exec.Mem (in memory and synchronous, for `sqlstream
// test`, in the manner of Kafka Streams' TopologyTestDriver). The engine
// hands a runner a small value (exec.Query, exec.Push: query_exec.go) and
// hears back through an observer, never the other way round. Statement
// logic is shared, so tests and the server run the same planner, topology
// and operators.
//
// Query lifecycle (an explicit state machine, see QueryState):
//
//	PENDING ─► RUNNING ─► TERMINATED
//	    └────► ERROR ◄───┘
//
// A fault a runner cannot get past (a store that cannot be restored, a
// failing task, a record the broker refused, a store that cannot flush)
// puts the query in ERROR with the reason (SHOW QUERIES, EXPLAIN, the log)
// and stops its runner, which leaves the consumer group: a query never
// keeps running while skipping records.
//
// Upgrades in place (upgrade.go): CREATE OR REPLACE … AS SELECT of a sink
// whose query runs replaces that query, as ksqlDB does: the same query
// id, application id (consumer group, internal topics, stores) and sink
// topic. planner.CheckQueryUpgrade decides with ksqlDB's rules and words
// before anything changes (a refused statement is never recorded); the
// sink's new schemas are registered (the subject's compatibility check);
// the command records the old query's id and prefix; once the engine lock
// is free the old runner stops (at_least_once commits, exactly_once_v2
// ends its transaction) and the new topology starts in the same group
// from the committed offsets, stores kept. Every server applies the
// command alike; a replay of the command log starts its queries only once
// the whole log is applied, so a restart runs each query's latest plan.
// EXPLAIN CREATE OR REPLACE prints the same check's report (what is kept,
// added and dropped, or why it is refused) and changes nothing.
//
// Naming (query_naming.go): a persistent query's application id (its
// consumer group, the prefix of its internal topics and store ids) is
// [_confluent-ksql-]<service id><ksql.persistent.prefix><query id>, the
// ksqlDB prefix under sqlstream.internal.topic.naming=ksqldb; the command
// that creates a query records the prefix, so a query never changes names.
//
// Configuration (package props): one property table (name, type,
// default, doc) validates the server's configuration, SET and a request's
// streamsProperties with ksqlDB's messages and fills SHOW PROPERTIES; the
// engine parses the server's properties once into a props.EngineConfig
// (Engine.cfg) and each query its own into a props.QueryConfig, whose
// runner part (exec.Config, query_exec.go) one builder (exec's
// task_env.go) makes the environment of every task from, whichever
// cluster or query kind runs it. No code reads a property with an inline
// default.
//
// Schema registry (package runtime/registry): ksql.schema.registry.url (with
// basic auth and PEM TLS) builds the registry client the planner and the
// registry formats' codecs use (WithSchemaRegistry replaces it in tests).
// CREATE registers its key and value schemas when the subjects do not
// exist, CREATE … AS SELECT always, both before any topic is created and
// never on replay; DROP … DELETE TOPIC deletes the subjects.
//
// Statements of ksqlDB's grammar beside queries: ALTER STREAM|TABLE … ADD
// COLUMN (alter_source.go, a recorded command: the planner appends value
// columns to a source no query created, and the ALTER to the statement
// DESCRIBE shows, as ksqlDB does); ALTER SYSTEM refused in open-source
// ksqlDB's words; ASSERT [NOT EXISTS] SCHEMA|TOPIC (package
// runtime/assert: retried every 100 ms until their TIMEOUT, a failure is
// a 417 in ksqlDB's words); the connector statements (package
// runtime/connectors, over the Connect client of runtime/connect), sent
// to the Kafka Connect cluster at ksql.connect.url outside the engine
// lock and never recorded (as ksqlDB, Connect keeps the connectors),
// Connect's failures answered as ksqlDB's KsqlRestException (a generic
// error with Connect's status and body).
//
// # Scale-out: standbys, warmups, failover
//
// Every server runs every persistent query; the query's group splits its
// tasks with the `sqlstream-tasks-v1` balancer of package runtime/assign
// (see its doc: sticky, by threads, standbys and warmups placed as
// KIP-441, probing rebalances), and the standby feeder of runtime/exec
// keeps each server's replicas warm from their changelogs. Because a
// member in a join commits nothing (kgo holds commits from JoinGroup to
// SyncGroup) until the last member joins, the
// rebalances the group plans are joined by every member at once
// (`runtime/exec/rebalance_rounds.go`): an assignment that revoked tasks tells every
// member to rejoin immediately for the second round (as Kafka Streams'
// follow-up rebalance), not at its next heartbeat; a rebalance waiting for
// a member (kgo's OnPartitionsCallbackBlocked) ends its open transaction
// at once; a member in a join keeps its transaction open until the sync
// (ending it then would abort it); and a task that just started ends its
// first transaction at once. Moving a task so took 58–67 ms from its
// revocation to its output on the new owner in an instrumented run (revoke
// → assigned 10 ms → restored 10 ms → first records 29–41 ms → committed
// 4–10 ms), against ~660 ms before (the second round waited 500 ms for the
// new owner's first heartbeat, the first transaction 140 ms for the
// interval, and the revoking members' other tasks lost two transactions:
// one begun after the revocation, one ended into the held join commit). On failover the dead member's tasks go
// to the members with the most local state, their standbys, which restore
// only their lag. `Engine.TaskAssignments` (`task_assignment.go`) lists each
// server's ACTIVE / STANDBY / WARMUP tasks with each store's position, end
// and lag, for /clusterStatus and pull-query routing.
//
// Restores run beside processing (see runtime/exec). A member's session timeout is
// `ksql.streams.session.timeout.ms` (default 10 s instead of the Java
// consumer's 45 s; the broker's minimum is 6 s). Under exactly_once_v2 a
// killed server's open transaction holds its partitions until the
// transaction timeout (10 s), so failover takes about max(session timeout,
// 10 s) plus the restore: `tests/failover_test.go` kills one of three
// servers mid-stream (10.2–10.4 s from kill to every partition's output
// moving again, standbys or not at that size: the moved stores restored 0
// records in 16 ms with a standby, ~700 in 20–30 ms without; with
// `SQLSTREAM_FAILOVER_PRELOAD=60000` keys, 0 records in 20 ms against 10 500
// in 60–80 ms, so detection, not restore, dominates until stores hold
// millions of records), adds a fourth (warmups first, actives once caught
// up; while it joins, no partition's output pauses longer than the
// baseline's longest pause, ~240–290 ms on a loaded two-core machine, plus
// one commit interval and the 25 ms polls' granularity: measured, the
// join's longest pause was 251/266/262 ms against baselines of 244/269/238
// ms, where before `runtime/exec/rebalance_rounds.go` it was 664 ms against 186 ms) and restarts all
// three in turn, with zero lost or duplicated records.
// `SQLSTREAM_FAILOVER_EVENTS`/`SQLSTREAM_FAILOVER_RATE` scale the run
// (12 000 at 300/s by default; the kill comes once 30 % are produced, the
// check waits until the query's group committed every event, at most
// max(3 min, events / 1 000 per s)); `make test-failover-long` runs 1M at
// 20 000/s (60 000 at 5 000/s: output moving again 9.98 s after the kill,
// 0 lost, 0 duplicated).
//
// # Scale-out: who runs what, pull queries from any server
//
// Servers of one service id share the command topic (every server runs
// every persistent query) and split each query's tasks through the group
// balancer (package runtime/assign), whose assignments carry the host
// maps of the whole group. Each member advertises its endpoint
// (`ksql.advertised.listener`, default the URL of the bound HTTP address;
// the HTTP listener is bound before the engine starts so that queries
// join with it; it stays loopback unless `listeners` says otherwise).
// Package runtime/cluster keeps this server's view of the others (host
// maps, heartbeats, lag reports), answers /clusterStatus and routes pull
// queries (see its doc); the engine hands it its queries as
// cluster.Query values (cluster_queries.go).
//
// A pull query on a table is checked against ksqlDB's WHERE rules and
// reads its keys' partitions or all (package runtime/pull), then is
// routed (package runtime/cluster): the store partitions this server runs
// are read here, the others forwarded to their hosts (runtime/pull.go).
//
// Inter-node requests (package peer: `/heartbeat`, `/lag`, forwarded pulls) carry
// `X-Sqlstream-Peer`: a time, a random nonce and an HMAC-SHA256 over
// method, path, time, nonce and body hash, keyed from the command-topic key,
// which the servers must share (`sqlstream.command.topic.secret`); anything
// unsigned, forged, more than 30 s off, or already accepted once (the
// receiver remembers the signatures of the window, so a captured request
// cannot be replayed) is refused with 40005. With BASIC authentication, `/heartbeat`
// and `/lag` need no user credentials (the signature is theirs), and a
// forwarded pull query carries the user's `Authorization` header, checked by
// the peer as any request: every server needs the same users. Not done:
// peers reached over https need a certificate the system roots trust.
package runtime
