// Package pull is the evaluation of a pull query on a materialized
// table: ksqlDB's WHERE rules checked before anything is read
// (where.go), the keys a key lookup reads and the store partitions
// holding them (keys.go, partitions.go), the reading of this server's
// partitions of the store into the pull query's task (scan.go), and
// whether the table's query has caught up with its inputs for the first
// pull query (ready.go: Behind; the engine waits on it).
// Where each partition is read (this server, a peer, a standby) is
// package runtime/cluster's; the engine ties the two together
// (runtime/pull.go) and never hands this package a query, only plans,
// topologies and the state DB.
//
//	pull query plan ─► Where.Check (NULL keys, IN types, table and range
//	      │             scans as the user allows)
//	      ├─► LookupKeys ─► LookupPartitions (murmur2 of the key as the
//	      │                 store's task was fed) │ AllPartitions
//	      ▼
//	cluster.Route ─► local partitions ─► Lookup (keys, one iterator per
//	                                     partition) │ Scan (every entry)
//	                                     ─► the task's filter, projection,
//	                                        LIMIT (done stops the read)
//
// A pull query on a table first passes ksqlDB's WHERE rules: a key never
// compared with NULL, `key IN (…)` values of the key's type, and, with
// `ksql.query.pull.table.scan.enabled=false`, every OR-branch looking up
// each key column once (`=` or `IN` on expressions without columns; one
// `<`/`>` bound on a lone STRING key under
// `ksql.query.pull.range.scan.enabled`), otherwise a 400. A key lookup
// reads only its keys' partitions: murmur2 of the key as the task's input
// is keyed, in the source key format when the task reads the source
// topic itself, through the repartition topic's own key codec behind a
// GROUP BY repartition (the source's key format under the topic's
// subject, its schema id included; the JSON store key for a query
// recorded before internal topics took the sources' formats); a join's
// store, or a key the codec cannot encode (registry down), asks every
// partition.
//
// The first pull query on a table waits for the table's query to catch
// up (WaitCaughtUp: RUNNING, its committed offsets at its inputs' end
// offsets, sub-topology by sub-topology, through Behind); the engine
// bounds the wait (sqlstream.query.pull.ready.wait.ms) and says what is
// missing when it passes.
package pull
