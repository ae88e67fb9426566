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
//	    │  └────► ERROR ◄───┘
//	    └──► PAUSED ◄──┘ (PAUSE; RESUME goes back)
//
// PAUSE and RESUME (query_pause.go) are commands of the command log, as
// TERMINATE is: every server applies them to its tasks and a restart
// replays them, so a paused query starts paused. Paused, its runner keeps
// the group membership, tasks, stores and committed offsets and fetches
// nothing (runtime/exec's Pauser); RESUME goes on from there.
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
// topic. planner.CheckQueryUpgrade decides with ksqlDB's rules and words,
// check.KeepState whether the stores can be kept, before anything
// changes (a refused statement is never recorded); the
// sink's new schemas are registered (the subject's compatibility check);
// the command records the old query's id and prefix; once the engine lock
// is free the old runner stops (at_least_once commits, exactly_once_v2
// ends its transaction) and the new topology starts in the same group
// from the committed offsets, stores kept. Every server applies the
// command alike; a replay of the command log starts its queries only once
// the whole log is applied, so a restart runs each query's latest plan.
// EXPLAIN CREATE OR REPLACE prints the same check's report (what is kept,
// added and dropped, or why it is refused: runtime/describe words it)
// and changes nothing.
//
// The statements' jobs beside the engine are its subpackages, each
// given views or a small interface, never *Engine: runtime/describe
// renders SHOW, DESCRIBE and EXPLAIN from views the engine takes under
// its lock (show.go); runtime/check refuses a statement before anything
// changes (a DROP's users, the query limit, a query reading its sink);
// runtime/topics checks and creates the topics a statement needs (on
// two methods of exec.Cluster); runtime/naming names queries;
// runtime/figures gathers a query's figures for GET /tasks and /metrics
// (store sizes, global stores, node counts carried across an upgrade in
// place) from plain values the engine hands it (query_figures.go);
// runtime/stmterr shapes a failed statement's answer (statement_error,
// masked parse errors, /query's one-statement rule).
//
// Naming (package runtime/naming): a persistent query's application id (its
// consumer group, the prefix of its internal topics and store ids) is
// [_confluent-ksql-]<service id><ksql.persistent.prefix><query id>, the
// ksqlDB prefix under sqlstream.internal.topic.naming=ksqldb; the command
// that creates a query records the prefix, so a query never changes names.
//
// Configuration (package props): one property table (name, type,
// default, doc) validates the server's configuration, SET and a request's
// streamsProperties with ksqlDB's messages and fills SHOW PROPERTIES; the
// engine parses the server's properties once into a props.EngineConfig
// (Engine.cfg), each session its own into a props.SessionConfig (when it
// starts and after each SET or UNSET), and each query its own into a
// props.QueryConfig, whose
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
// # Scale-out
//
// Every server of a service id runs every persistent query; the query's
// consumer group splits its tasks with the `sqlstream-tasks-v1` balancer
// of package runtime/assign (sticky, by num.stream.threads, standbys and
// warmups placed as KIP-441, probing rebalances, host maps in every
// assignment). Package runtime/exec keeps the replicas warm (the standby
// feeder), restores beside processing, and joins the rounds of a
// rebalance at once (rebalance_rounds.go; its doc gives the measured
// hand-over of a task). On failover the dead member's tasks go to the
// members holding their standbys, which restore only their lag
// (tests/failover_test.go has the measured figures). A member's session
// timeout is `ksql.streams.session.timeout.ms` (default 10 s instead of
// the Java consumer's 45 s; the broker's minimum is 6 s).
// Engine.TaskAssignments (task_assignment.go) lists each server's
// ACTIVE, STANDBY and WARMUP tasks with each store's position, end and
// lag, for /clusterStatus and pull-query routing.
//
// Each member advertises its endpoint (`ksql.advertised.listener`,
// default the URL of the bound HTTP address; the HTTP listener is bound
// before the engine starts so that queries join with it; it stays
// loopback unless `listeners` says otherwise). Package runtime/cluster
// keeps this server's view of the others (host maps, heartbeats, lag
// reports), answers /clusterStatus and routes pull queries; the engine
// hands it its queries as cluster.Query values (cluster_queries.go). A
// pull query on a table is checked against ksqlDB's WHERE rules and
// evaluated by package runtime/pull, the store partitions this server
// runs read here and the others forwarded to their hosts
// (runtime/pull.go).
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
