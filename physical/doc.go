// Package physical builds topologies from logical plans and implements the
// operators that run inside tasks.
//
//	Plan ──► Build ──► Topology ──► SubTopology (source topics)
//	                                   │ NewTask(partition)
//	                                   ▼
//	  InRecord ─► source ─► filter ─► flatMap ─► project ─► sink ─► Emitter (OutRecord)
//	              (deserialize,       (table                (serialize,
//	               ROWTIME)            functions)            windowed keys)
//	                 │ bad record                     └─► RowSink (push queries)
//	                 └─► ProcessingLog
//
// A Processor has one method, Process(row). Each task owns its processor
// instances, so operators keep per-task buffers without locks. Describe
// prints the topology in Kafka Streams' TopologyDescription format with
// explicit, stable node names; golden tests pin it and EXPLAIN shows it.
//
// Repartition topics and join store keys are written in the formats of
// the sources they copy, registry formats under the internal topic's own
// subjects (internal_format.go); Options.LegacyInternalJSON keeps the JSON
// of queries recorded before.
package physical
