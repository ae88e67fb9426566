// Package runtime is sqlstream's engine: it executes statements, keeps the
// catalog, runs persistent and transient queries as tasks over Kafka, and
// makes persistent queries survive restarts through the command topic.
//
//	Execute(stmt) ─► parser ─► planner ─► physical.Build ─► cluster.start
//	     │                                                      │
//	     ▼                                                      ▼
//	command topic  (_<service-id>_command_topic,      kafkaCluster: one
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
// (balancer.go: whole tasks, sticky, cooperative, by num.stream.threads).
// With num.standby.replicas the balancer also places standby replicas on
// other servers, kept warm from the changelogs (standby.go), and moves a
// task only to a caught-up server, warming the new one up first
// (task_replicas.go, probing.go); Engine.TaskAssignments reports each
// server's active, standby and warmup tasks and their lag
// (task_assignment.go). Restores run beside processing, their task's
// inputs paused (restore_async.go).
//
// The cluster interface has two implementations: kafkaCluster (franz-go,
// for the server) and memCluster (in memory and synchronous, for
// `sqlstream test`, in the manner of Kafka Streams' TopologyTestDriver).
// Statement logic is shared, so tests and the server run the same
// planner, topology and operators.
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
// (Engine.cfg) and each query its own into a props.QueryConfig, from
// which one builder (task_env.go) makes the environment of every task,
// whichever cluster or query kind runs it. No code reads a property with
// an inline default.
//
// Schema registry (schema_registry.go): ksql.schema.registry.url (with
// basic auth and PEM TLS) builds the registry client the planner and the
// registry formats' codecs use (WithSchemaRegistry replaces it in tests).
// CREATE registers its key and value schemas when the subjects do not
// exist, CREATE … AS SELECT always, both before any topic is created and
// never on replay; DROP … DELETE TOPIC deletes the subjects.
package runtime
