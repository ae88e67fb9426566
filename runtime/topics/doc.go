// Package topics checks and creates the Kafka topics a statement needs,
// before anything is recorded: a CREATE STREAM/TABLE's topic (there,
// with the PARTITIONS asked, or created), a CREATE … AS SELECT's sink
// topic, a query's repartition and changelog topics, and the
// co-partitioning of a join's sources. It sees the cluster through its
// own two-method Cluster (the executor's has them), never the engine.
//
//	CREATE STREAM|TABLE ─► EnsureSource ─► Partitions ─► exists: counts match?
//	                                                 └─► missing: PARTITIONS given
//	                                                     (or AutoCreate) ─► CreateTopic
//	CREATE … AS SELECT ─► CheckCopartitioned ─► EnsureSink ─► CreateTopic (tables compacted)
//	INSERT INTO, push  ─► CheckCopartitioned
//	any query          ─► CreateInternal: a topic per topology.Internal, partitioned as
//	                      the topic it follows, changelogs compact[,delete]
//
// Past sqlstream.topic.partitions.max no topic is created; errors are
// sqlerr errors at the statement's position, in ksqlDB's words where
// ksqlDB has them.
package topics
