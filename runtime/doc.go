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
package runtime
