// Package physical builds topologies from logical plans and implements the
// operators that run inside tasks.
//
//	Plan ──► Build ──► Topology ──► SubTopology (source topics)
//	                                   │ NewTask(partition)
//	                                   ▼
//	stateless, one sub-topology:
//	  InRecord ─► source ─► filter ─► flatMap ─► project ─► sink ─► Emitter (OutRecord)
//	              (deserialize,       (table                (serialize,
//	               ROWTIME)            functions)            windowed keys)
//	                 │ bad record                     └─► RowSink (push queries)
//	                 └─► ProcessingLog
//
//	aggregation (GROUP BY other than the key), two sub-topologies:
//	  0: source ─► filter ─► group-by (re-key) ─► <app>-Aggregate-GroupBy-repartition
//	  1: repartition source ─► aggregate ◄──► Aggregate-Aggregate-Materialize ─► changelog
//	        │  (window or session store; EMIT FINAL: the Suppress buffer)
//	        └─► HAVING filter ─► project ─► sink
//
//	join, its sides co-partitioned (else each re-keyed to
//	<app>-Join-left/right-repartition first):
//	  left source ──► Join-Left-Materialize (a table side) ─┐
//	                                                        ├─► join ─► filter ─► project ─► sink
//	  right source ─► Join-Right-Materialize (a table side) ┘
//	    stream–table: the table side updates its store, the stream side looks up;
//	    stream–stream: each side's window store (Join-this/other-join) WITHIN the
//	      window, outer results held in Join-Buffer until the grace ends;
//	    foreign-key table–table: subscription registration and response topics
//	      between two sub-topologies (join_fk.go); global table: GlobalStore lookups.
//
// A Processor has one method, Process(row). Each task owns its processor
// instances, so operators keep per-task buffers without locks. With
// TaskEnv.Counts a task counts the records each of its nodes receives
// (node_counts.go: one atomic counter per node of the query, no lookup per
// record), for the per-processor rates of /metrics and the console: a
// wrapper in front of each step, and inside a join's head the counters its
// operators take by node name when the task is made (materializations,
// join nodes, a foreign-key join's subscription processor and sinks), so
// every node the topology describes has a figure. Describe
// prints the topology in Kafka Streams' TopologyDescription format with
// explicit, stable node names; golden tests pin it and EXPLAIN shows it.
//
// # Aggregations (GROUP BY)
//
// `GROUP BY` on anything but the current key splits the topology: sub-topology
// 0 re-keys rows (group key + aggregate arguments, the retraction of a table
// row's old value when it changes group) and writes them to
// `<app-id>-Aggregate-GroupBy-repartition`; sub-topology 1 reads that topic
// and keeps accumulators per group in the store
// `Aggregate-Aggregate-Materialize`, backed by the compacted changelog
// `<app-id>-Aggregate-Aggregate-Materialize-changelog`. A group's updates
// follow the cache, as Kafka Streams' record cache forwards a KTable's:
// under at_least_once with `cache.max.bytes.buffering` above 0 the
// unwindowed aggregate keeps each group's
// latest update (`outputCache`) and forwards it, with the value last
// forwarded as the old one (KTable semantics: HAVING deletes a row only if
// it was visible before), when the task's stores flush: at the commit or
// once the cached updates and held outputs fill the cache's bound. So a
// group updated 500 times between two commits is filtered, projected,
// encoded and produced once. The records then go out behind the store's
// changelog records (`runtime/exec/held_output.go`), so a sink is never
// ahead of what a restore brings back. exactly_once_v2 collapses the same
// way till each transaction commits (an abort drops the cache with the
// tasks). With a cache of 0 (as the QTT run), in push queries and in the
// in-memory cluster every update is forwarded at once. A group's accumulators stay decoded in the
// store's cache between updates (`aggValue`, a `state.Lazy`): they are
// encoded when the cache writes them down, not on every update, and a
// result the update left unchanged is not computed again (a
// COUNT_DISTINCT sketch is kilobytes); a COUNT_DISTINCT state the operator
// made itself, never one decoded from bytes, is updated in place
// (functions.OwnedAdder), after the row's other calls. A restart with intact local state replays only the
// changelog tail after the checkpoint; with lost state the store is rebuilt
// from the changelog. Pull queries read the committed state of the store,
// apply the query's HAVING and projection, then their own WHERE.
//
// Tables written without aggregation (CTAS with a filter or projection, and
// `CREATE SOURCE TABLE`, through a `CST_` query) keep their rows in a
// `Materialize` store, so pull queries read them the same way.
//
// Windowed aggregations keep per-task stream time; a window accepts records
// while stream time < end + grace (sessions: end + gap + grace); late
// records are dropped, counted, logged (with the offset of the source
// record, carried through repartition topics in a header) and optionally
// sent to `late.records.topic`. Tumbling and hopping windows live in a
// window store (key ‖ start), sessions in a session store (key ‖ end ‖
// start; merged sessions are deleted downstream with tombstones), sliding
// windows are aggregated from the group's raw records kept in a store. EMIT
// FINAL buffers whole result rows in the changelogged store
// `Aggregate-Aggregate-Suppress` (ordered by window end, then group key)
// until the window closes, and emits exactly one result per window that
// accepted a record, however far stream time jumps: per record, stream
// time advances, the record updates its open windows, every window the new
// stream time closed leaves the buffer in that order, and only then are
// windows past their retention purged from the window store. The buffer
// also keeps the task's stream time, so after a restart (local state kept
// or rebuilt from the changelog) an emitted window stays closed and a
// closed one is emitted once. The buffer is a queue by window end: each
// scan starts where the last one stopped (not over the deleted windows,
// which an LSM keeps as tombstones for a while), and the store cache
// indexes its live entries in a B-tree built by the first Range and drops
// written-down deletes at flush (`state/caching.go`), so a scan costs the
// windows it emits; and it scans only once stream time has passed the
// earliest buffered window's end (`nextEnd`, read after each scan and
// lowered by every buffered result), not after every record. `window.close.idle.ms` lets the wall clock
// close the windows of a quiet partition (the runner punctuates tasks
// between polls). Windowed changelogs are `compact,delete` with the window
// retention plus a day.
//
// GROUP BY may follow a join (`planner/join_regroup.go`): the join's flat
// rows (qualified columns `A_X`, WHERE applied) are the aggregation's
// input, with the same `Aggregate-GroupBy-repartition` topic (unless
// grouped by the join key) and stores. A table–table join's result is a
// table, so its aggregation is a table aggregation (undoable aggregates
// only, the join's latest row per key in `Aggregate-Source-Materialize`,
// an update retracts the old row). As in ksqlDB (its issue 5931) a
// windowed aggregation over a join cannot read WINDOWSTART/WINDOWEND.
//
// # Joins
//
// `FROM a [x] <INNER|LEFT|RIGHT|FULL> JOIN b [y] ON <eq>` plans a `Join`
// node (`planner/join*.go`) over two scans. Its output schema is ksqlDB's:
// the join key, then every column of each side qualified `ALIAS_COL`; all
// expressions above the join are rewritten onto those names
// (`joinScope`: `x.col`, unqualified names of one side, `x.*`; an
// unqualified name of both sides is ambiguous). A selected column keeps its
// name unless both sides have one so called (then `ALIAS_COL`, ksqlDB's
// AstSanitizer). The key is the first join column the projection selects
// (left for `*`), the synthetic `ROWKEY` (`ROWKEY_n` past source columns)
// for FULL OUTER. ksqlDB's validation errors (table–stream order,
// FULL/RIGHT stream–table, WITHIN on non-stream–stream, non-PK table side,
// types, self joins, KAFKA values, windowed sources, key missing from the
// projection) are golden in
// `planner/testdata/join`.
//
// Physically (`physical/join*.go`) a join is one sub-topology reading both
// topics; `joinHead` dispatches raw records by topic to each side's source
// operator. Such a task reads its inputs in timestamp order, as Kafka Streams'
// PartitionGroup does (`runtime/exec/partition_group.go`): the Kafka runners
// (persistent and push queries) queue the fetched records of every multi-input task per partition and
// release the head with the smallest record timestamp (ties: the
// sub-topology's topic order); while a partition is empty the task waits,
// unless that partition is caught up to its end offset (a fetch returned it
// empty, or its records reached the last stable offset) and
// `max.task.idle.ms` (default 0, -1 never waits; per query through SET) has
// passed. A partition whose end is unknown holds back at most 1 s
// (`unknownLagWait`). Single-input tasks bypass the queues. Only released
// records count as processed: ALOS commits their offsets only; under EOS
// the queued records are handed back to the consumer (`SetOffsets`) before
// each transaction ends, so the session commits no unprocessed offset. The
// in-memory cluster already replays a join's backlog sorted by timestamp
// and delivers live records synchronously (always caught up). Table sides live in `KafkaTopic_Left-Reduce` /
// `KafkaTopic_Right-Reduce` (key → ts ‖ non-key columns in the table's value format),
// changelogged to `<app-id>-<store>-changelog` as our aggregation stores
// are (not the source topic: the source-topic optimisation would need the
// store's format to be the topic's). Stream–table: only stream rows
// trigger a lookup (inner drops a miss, left emits nulls; null values are
// skipped, a null key joins only a LEFT join, KIP-962), table tombstones
// delete, output time = the stream row's. Table–table: each side's change
// updates its store, looks up the other, and forwards the joined
// (new, old) change per Kafka Streams' KTableKTable{Inner,Left,Right,Outer}
// rules (RIGHT = swapped LEFT), time = max of both sides; a deleted result
// is a tombstone. A stream joined on anything but its key is re-keyed by a
// sub-topology of its own into `<app-id>-Join-repartition`, keyed in the
// table's key format so murmur2 puts it in its table key's partition; the
// topic gets the partition count of the side it joins. Before a join query
// is recorded or anything is created, `runtime/copartition.go` compares the
// two sources' partition counts and fails with ksqlDB's "Can't join `A`
// with `B` since the number of partitions don't match…" (plus the topics).
//
// Stream–stream joins (`WITHIN n | (before, after) [GRACE PERIOD g]`,
// `physical/join_stream.go`, `join_outer.go`) keep each side in a window
// store with duplicates (`KSTREAM-JOINTHIS-N-store` /
// `KSTREAM-OUTEROTHER-(N+1)-store`…, N Kafka Streams' node number of the
// store: the nodes ksqlDB builds before it, counted by
// `join_numbering.go` (8 for one join, plus 4 per re-keyed side; an
// n-way step counts the steps and tables below it; commands recorded
// before `internalFormats: "sources/3"` keep their old numbers,
// Options.LegacyJoinStoreNumbers);
// retention before + after + grace, grace defaulting to max(24h − 2·before,
// 0) as ksqlDB's deprecated `JoinWindows.of`). Each store has its own
// stream time, its largest row time (Kafka Streams' observedStreamTime,
// found again by the scan that opens a store after a restart or restore):
// reads skip rows older than it minus the retention, and a row that old is
// late: it still joins the other side's store (and a preserved side emits
// it with nulls at once) but is not stored, and it is reported as
// `LATE_RECORD` in the processing log, counted as a late record (DESCRIBE
// EXTENDED, `sqlstream_query_late_records_total`) and copied to
// `late.records.topic` (`TaskEnv.dropLate`, shared with windowed
// aggregations). The stores purge rows past their retention at most once
// per segment interval (max(retention/2, 1 min)), without tombstones, as
// the window stores of aggregations (changelogs compact,delete with the
// retention plus a day). Rows with a null key or value are skipped and
// counted (`dropped-records (null key or value)`,
// `sqlstream_query_skipped_records_total`), except a null key on a
// preserved side (KIP-962). The two window stores have no write-back
// cache (`StoreSpec.Uncached`; Kafka Streams builds them without one
// too): every row is a key of its own (key, time, sequence number), so a
// cache would only copy, index and later write down each put; a put goes
// to the changelog and the Pebble batch at once. Each window store has an in-memory
// `windowCache` (`join_window_cache.go`) of the decoded rows by key, put
// in the last 2·(before + after) behind the older of the two sides'
// newest times (the other side's input may run behind; at most 8 such
// spans), ≤ 16 MiB estimated: a lookup from at or after its low-water
// mark is answered from it, an older one (late rows, trimmed rows) reads
// the store; a restarted task refills it with one scan from its newest
// time. It copies the rows' values into chunks of 4096 and trims a
// key's rows by moving them down (keeping the slice's room), so a put
// of a key it holds seldom allocates. Either side triggers: a row joins every row
// of the other side's window, time = max of both. Without GRACE, an
// unmatched row of a preserved side is emitted at once (eager, as
// ksqlDB); with GRACE it waits in `KSTREAM-OUTERSHARED-N-store` (ts ‖ side
// ‖ key) until the task's stream time (over both inputs, `joinClock`)
// passes its window plus grace, unless a match cancels it. That stream
// time is kept in the shared store (after every entry, changelogged with
// them), so after a restart, with local state kept or rebuilt, pending
// rows are emitted and arriving ones buffered or emitted at once as
// without it (`runtime/join_restart_test.go`). The sweep deliberately has
// no wall-clock throttle (Kafka Streams sweeps at most once a second):
// results depend on the records only, not on processing speed or
// restarts; it is skipped while the oldest pending row cannot be due
// (Kafka Streams' minTime). A side joined on an expression is re-keyed into
// `Join-left-repartition` / `Join-right-repartition` (RIGHT swaps them, as
// ksqlDB plans RIGHT as a swapped LEFT).
//
// N-way joins (`FROM a JOIN b ON … JOIN c ON …`) are left-deep trees:
// `joinInputs` plans a nested left `*ast.Join` first (`nestedInput`,
// prefix `L_`, `L_L_`… for deeper steps), picking its key from the
// query's SELECT list, and the next step reads it as a `Source` with the
// nested join's flat schema and no topic (`JoinInput.Nested`). The
// `joinScope` resolves references over all leaves of the tree; the nested
// columns keep their `ALIAS_COL` names in every later step. A later step
// joined on the nested key or on any of its inner join columns (ksqlDB's
// equivalence set; not for a FULL inner step) uses it as key, anything
// else re-keys the nested result. Physically a nested step joined on its
// key continues its segment (`joinSegment`/`nestedJoin`): its operators
// feed the next step's left operator in the same task, its topics join the
// head's; a re-keyed one ends with `rekeySide`'s select-key and sink into
// the step's `Join-repartition`. Nested steps' stores, repartition topics
// and nodes are prefixed (`L_KafkaTopic_Right-Reduce`,
// `L_Join-left-repartition`); stream–stream store numbers add 20 per
// nested level. The co-partition check runs per step (right source vs the
// step's leftmost source). An FK join is only allowed as the first step.
//
// Multi-column and non-equi conditions (`planner/join_conditions.go`,
// `physical/join_residual.go`, `join_repartition_key.go`; ksqlDB rejects
// both, its QTT negatives for them are deviations): in an ON conjunction
// the equalities of one expression per side that can key the join form a
// composite key (`Join.Equalities`, `JoinInput.Keys`/`Rekey` one entry
// per column, in ON's order; the output has one key column per equality,
// named from the side the first one's name came from). A table side must
// be joined on exactly its primary key columns (else ksqlDB's "…require
// to join on the table's primary key"); an equality on a table's value
// column is a residual. A stream side not keyed by exactly its join
// columns is re-keyed by all of them, its repartition key written in the
// kept side's key layout (column names and order, key format; JSON when
// both are re-keyed) so it lands in its match's partition; two sides that
// keep composite keys of different layouts re-key the stream side (two
// tables fail). At run time the key is a tuple (`[]any`); a null column
// never matches. The other conjuncts are the residual, compiled over the
// join's output schema and run inside the join: a pair it rejects is no
// match. Stream–table: LEFT emits (S, null), INNER drops. Stream–stream:
// the pair is skipped; a row with no accepted pair is unmatched (eager
// nulls, or the GRACE shared store, which only an accepted pair clears).
// Table–table: each change's result is computed for the old and for the
// new row against the other side's current row, each as its own join, so
// a rejected pair makes LEFT emit (L, null) and INNER a tombstone, and
// nothing is sent when neither row had a result. FULL table–table joins
// and FK joins take no residual (a rejected FULL pair would be two rows of
// one key). A composite key needs a key format of several columns (KAFKA
// fails as ksqlDB's GROUP BY does) and must be selected whole.
//
// Sides joined on their keys whose key formats differ (KAFKA and JSON, say)
// write equal keys as different bytes, which murmur2 may put in different
// partitions: as ksqlDB does, the right side is repartitioned into the
// left's key format (`planner/join_key_format.go`): a stream is re-keyed
// by its own key into `Join-right-repartition` (stores numbered as for one
// re-keyed side), a table is copied into `RightSourceKeyed-SelectKey-repartition`
// (deletes stay deletes, `physical/join_reformat.go`) and kept in
// `RightSourceKeyed-Materialize`. A side joined on a non-key expression was
// already re-keyed in the kept side's format. The result keeps the left's
// key format.
// When the join key format is a registry format (AVRO, PROTOBUF, JSON_SR)
// and the left side a stream, every side is repartitioned, as ksqlDB's
// PreJoinRepartitionNode does "to avoid misses due to key schema ID
// mismatch": each producer's key bytes carry its own schema id, the
// repartition topics' one serializer's; tables go through
// `LeftSourceKeyed-` / `RightSourceKeyed-SelectKey-repartition` (n-way
// steps repartition their right side only). Two windowed streams so
// keyed are repartitioned too (`join_window_rekey.go`): the repartition
// keys end with the window in the left's windowed key format (a time
// window's start, a session's end and start), the values with the row's
// own WINDOWSTART and WINDOWEND, which the window stores keep too; rows
// match by key and the window as the left's format reads it, so time
// windows of other types or sizes join by their starts, as in ksqlDB
// (commands recorded before `internalFormats: "sources/3"` keep reading
// their sources, planner.Defaults.LegacyWindowedJoins). A windowed table
// so keyed, joined to a windowed table or stream of its window type and
// size, is copied through its SourceKeyed topic with its windowed key
// (the sink's windowed serializer) in the left's key format, a windowed
// stream re-keyed with its window as above, so equal keys and windows
// are equal bytes in one partition whatever schema ids their producers
// wrote. ksqlDB refuses those joins (it cannot repartition a windowed
// table, SchemaKTable.selectKey) and any persistent query over a
// windowed table; sqlstream runs them (planner windowedRepartition;
// commands recorded with "sources/3" keep reading their sources,
// planner.Defaults.LegacyWindowedTableJoins).
//
// Joins of windowed sources (`planner/join_windowed.go`,
// `physical/join_window_key.go`) follow ksqlDB's rules: both sides or
// neither windowed, session only with session, hopping/tumbling only with
// those ("Incompatible windowed sources…"), no re-keying ("Implicit
// repartitioning of windowed sources is not supported. See …4385"), and the
// same window type, size and key format (else ksqlDB would repartition to
// match the key format, so the same error without the link; except for
// sides keyed in a registry format, repartitioned anyway, above);
// no FK join.
// The join key carries the window: the side stores' keys are the key
// followed by the window's end and start (an exact match, as ksqlDB's
// binary key match), the output row keeps the window so the sink writes a
// windowed key, and the result source is windowed like the left. Each
// windowed side's bounds are columns of the join after its key
// (`ALIAS_WINDOWSTART`, `ALIAS_WINDOWEND`, selected by `*` as in ksqlDB's
// join schema, read by `x.WINDOWSTART`): operators pass them after the
// side's row time (`withTime`), null for a missing side.
//
// Every source's row time is a hidden column `ALIAS_ROWTIME` at the end of
// the join schema (not selected by `*`, read by a qualified `x.ROWTIME`):
// operators pass each side's values followed by its row's time
// (`withTime`, or in place as a `timed` side), and the joiner reads index
// `len(side columns)`.
//
// A qualified `x.ROWPARTITION` / `x.ROWOFFSET` (in ON or above the join)
// reads x's source record, as in ksqlDB, whose sources copy these pseudo
// columns into the value (`planner/join_record.go`): a source any of the
// query's expressions names so gets a copy with two more columns
// (`types.RecordNS`, named ROWPARTITION and ROWOFFSET) that the source
// operator fills from the record; the side's window or table stores and
// its repartition topic keep them as values, so a re-keyed or stored row
// keeps its source record's, and the join has them as hidden
// `ALIAS_ROWPARTITION` / `ALIAS_ROWOFFSET`. An unqualified ROWPARTITION
// stays the joined row's record. Other queries' sides and stores are
// unchanged. `SELECT *` above a join re-keyed by PARTITION BY selects, as
// ksqlDB's repartitioned join value does, per source its value columns,
// ROWTIME, ROWPARTITION, ROWOFFSET, then its key columns (so every side
// carries its record columns).
//
// Foreign-key table–table joins (`FROM l JOIN r ON <expr of l> = r.pk`,
// INNER/LEFT; RIGHT/FULL fail as in ksqlDB) are recognised by
// `checkJoinKeys`: `JoinInput.ForeignKey` computes the FK from a left row
// and the result is keyed by the left's primary key (ksqlDB's "Primary key
// column missing in projection…" otherwise). `physical/join_fk*.go` plans
// KIP-213 as two sub-topologies: the left one stores the left table
// (`KafkaTopic_Left-Reduce`) and sends a subscription (instruction, hash of
// the new value, left key, its partition) keyed by the FK in the right
// key format to `KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000012-topic`;
// an FK change first unsubscribes the old FK, a delete unsubscribes and
// propagates. The right one (co-partitioned with the right table; the
// topic and its stores' changelogs take the right table's partition count
// through `InternalTopic.PartitionsOf`) keeps subscriptions in
// `KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000016` (len ‖ fk ‖ pk →
// hash ‖ partition), answers each with the right row, and answers every
// subscriber of a right key on its change (prefix scan), at that change's
// time, on `KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000020-topic` to the
// left row's partition. The left side joins a response with the current
// left row, dropping it when the row's hash differs (stale); a missing
// right row is a delete (inner) or nulls (left). The hash is FNV-128a of
// the left row's non-key columns as JSON, not Kafka Streams' Murmur3 of
// the serialized value (only equality matters; the topic is ours). The
// node numbers are those of ksqlDB's two-table FK topology. No
// co-partition check. A left table keyed by several columns joins only
// by foreign key (even on one of its key columns); the result
// keeps the whole left key (`layoutForeignKeys`), all of which the
// projection must select.
//
// As-of joins (joins.md §3.4 ii, Flink's spelling): `FROM s [x] [LEFT]
// JOIN t FOR SYSTEM_TIME AS OF x.ROWTIME [[AS] y] [GRACE PERIOD g] ON …`.
// The parser lifts the clause (`sql/parser/asof.go`, `ast.Join.AsOf`; the
// time is a column, not an expression); the planner (`planner/asof_join.go`)
// allows it only on a two-source stream–table join (INNER or LEFT), on the
// stream's ROWTIME or a TIMESTAMP/BIGINT column of it. The table's history
// retention is the table property `HISTORY_RETENTION='<n> <unit>'` (CREATE
// TABLE or CTAS, default 1 day). Physically (`physical/join_asof*.go`) the
// table side writes every change as a version into
// `KafkaTopic_Right-Versioned`, a `state.VersionedStore` (key ‖ valid-from
// → kind ‖ value; a tombstone is a version; the observed table time under
// its own key), and a stream row joins the version valid at its time. As
// in Kafka Streams' versioned stores (KIP-889/914) an update older than
// observed − retention is dropped, a read older than that sees only the
// latest version, and a purge (every half retention of table time) deletes
// hidden history, through the changelog (compacted only: a key's latest
// version must outlive the retention). With GRACE the stream rows wait in
// `Join-Buffer` (ts ‖ offset ‖ n, changelogged with the stream time)
// until the stream time (the largest stream row time seen) passes their
// time + g, then join in time order, so a late table update within the
// grace is seen (KIP-923); a row already older than that joins at once.
// Without `FOR SYSTEM_TIME AS OF` a stream–table join keeps ksqlDB's
// latest-value semantics. A stream–table join's stream rows with a null
// value, or a null key in an inner join, are skipped and counted as a
// stream–stream join's are (`op.env.skip()`). Not done: as-of steps in n-way joins.
//
// Global tables (`CREATE GLOBAL TABLE t (…) WITH (KAFKA_TOPIC=…, …)`,
// Kafka Streams' GlobalKTable; joins.md §3.4 i with the spelling
// rather than a `GLOBAL=true` property): only over a topic (no GLOBAL
// STREAM, no AS SELECT). Only KStream–GlobalKTable joins exist, so
// `checkGlobalJoin` (`planner/join_global.go`) rejects a global table on
// the left, RIGHT/FULL joins and table–global-table joins, each with its
// own message. In an n-way join the global steps come last (a star join,
// `checkNestedGlobal`): each is one more processor step (`Join`) after the
// earlier steps' segment, looking up the rows so far. The stream
// joins on **any expression of its columns** (`JoinInput.Lookup`) equal to
// the table's primary key; the result keeps the stream's key
// (`Left.KeyIndex`, which the projection must select; a keyless stream's
// result is keyless, `Join.Keyless`) and partition; no
// repartition, no co-partition check (`checkJoinStep`). Physically
// (`physical/join_global.go`) the join is one sub-topology over the stream
// topic; the table is a `GlobalStoreSpec` of the topology, described as
// Kafka Streams describes one ("Sub-topology: N for global store (will not
// generate tasks)"). The runtime (`runtime/global`,
// `runtime/exec/global_follow.go`) gives each query (persistent or push) one store per
// global table, shared by all its tasks behind a mutex: before the
// query's runner starts, the store is filled from every partition of the
// topic up to the end offsets seen at the start (an unassigned franz-go
// consumer, read_committed; the in-memory cluster replays the topic
// synchronously), then the same consumer keeps it current until the query
// stops, and a metadata check (every 10 s, `WithGlobalPartitionCheck`;
// an idle fetch waits at most as long) follows partitions added to the
// topic from their beginning. `WithGlobalLoadHook` lets a test observe,
// hold up or fail a load. On Kafka
// the load runs outside the engine lock (`runtime/global_start.go`, `runtime/global/background.go`): CREATE, and
// the command topic's replay at start-up, only start it; the query stays
// PENDING meanwhile, its runner starts once the load is done, and a failed
// load puts it in ERROR with a message naming the topic and what to do.
// The topic is the store's changelog (no internal topic); as Kafka
// Streams' global state manager, the store keeps a **local checkpoint**
// (`runtime/global/store.go`): rows under 0x01 ‖ key and the next offset of each
// partition under 0x02 ‖ partition, written last before each commit so
// they go in the same Pebble batch as the rows they cover. A restart reads
// only the tail after it; a checkpoint out of the topic's range (start ≤
// next ≤ end fails: the topic was deleted and re-created, retention
// removed records) or none wipes the store for a full reload (a topic
// re-created with more records than the checkpoint is not detected: no
// topic id is kept). `sqlstream_query_global_records_loaded_total` counts
// the records loaded. Only stream rows trigger; a null or failing lookup
// key matches nothing (LEFT emits nulls); a null value, and a null lookup
// key of an inner join, count as skipped (`dropped-records (null key or
// value)`), as for stream–table and stream–stream joins. EXPLAIN marks the
// source `Global`; SHOW TABLES and DESCRIBE carry `"isGlobal": true`
// (omitted for other sources). A pull query on a global table answers from
// a full local copy read the same way up to the topic's end at its start,
// then dropped (ksqlDB has no global tables; an ordinary source table
// still needs CTAS for pull queries). Any other query reading a global
// table reads it as a plain table.
//
// # PARTITION BY: the sink is the repartitioned topic
//
// `CREATE STREAM s2 AS SELECT … FROM s PARTITION BY expr` re-keys each row and
// writes it to the sink topic, partitioned by the new key (murmur2, as the
// Java producer): the sink topic *is* the repartitioned stream, and no
// `<app-id>-…-repartition` topic sits in between. This is Kafka Streams'
// rule (`selectKey` alone never repartitions; a repartition topic is inserted
// only when a key-dependent operation follows the key change, as GROUP BY
// does here) and ksqlDB's behaviour: its own conformance tests
// (`partition-by.json`) assert that no `.*-repartition` topic exists after a
// PARTITION BY query. A version that wrote through a repartition topic first
// was built and reverted: it failed ten of those variants, taking the file
// below the 90% issue 4 asks of it, and doubled the records written for no
// change in the result. A PARTITION BY or join condition on a non-key column
// followed by a join inserts `<app-id>-Join-repartition` (stream–table) or
// `Join-left-`/`Join-right-repartition` (stream–stream) topics
// (`physical/join_repartition.go`), since there the key change is followed
// by a key-dependent operation.
// PARTITION BY may also follow a stream–stream or stream–table join: it
// re-keys the joined rows the same way (the join key moves into the value)
// and the sink partitions them; a table–table join's result cannot be
// re-partitioned. `SELECT *` after it lacks ksqlDB's per-side
// `ROWPARTITION`/`ROWOFFSET` columns: a join carries only each side's row
// time.
//
// # Formats of internal topics
//
// As in ksqlDB, a repartition topic is written in the formats of the source
// whose rows it copies, and a join's table and window stores key their
// entries (so their changelogs' keys) in the join key's format
// (`physical/internal_format.go`): the GROUP BY repartition in the first
// source's key and value formats, a join's re-keyed side in the kept side's
// key format and its own value format. A registry format (AVRO, PROTOBUF,
// JSON_SR) registers the columns' schema under the internal topic's own
// subjects, `<internal topic>-key` / `-value`, at the first record (never
// the source's subject, never its KEY_/VALUE_SCHEMA_ID); they are deleted
// with the internal topics when the query ends. NONE keys become KAFKA,
// KAFKA keys of several columns JSON, and a format that cannot hold the
// columns (a DELIMITED STRUCT, a value of no columns) JSON. The store a
// table-writing query without aggregation keeps its rows in (`Materialize`,
// which pull queries read) holds them in the table's own formats, as
// ksqlDB's does, so a pull query answers what the topic holds (a PROTOBUF
// NULL as its proto3 default); a stream–stream join's window stores keep
// each side's rows in that side's value format. An aggregate store's
// values (all window kinds) are an 8-byte timestamp then the
// accumulators in the first source's value format under the
// changelog's value subject, one column per accumulator of the
// aggregate's intermediate type (`agg_state.go`), named after its call
// (`KSQL_AGG_<FUNCTION>_<hash>`) where ksqlDB numbers them
// (`KSQL_AGG_VARIABLE_n`), so an upgraded query that keeps an aggregate
// keeps its accumulator. Its keys (so its changelog's) are the group key
// in the first source's key format under the changelog's key subject, as
// ksqlDB writes `…-Aggregate-Materialize-changelog` keys (NONE becomes
// KAFKA, KAFKA of several columns JSON); a windowed store's keys are that
// key then the window as Kafka Streams' window (start, sequence number)
// and session (end, start) stores lay them out. The EMIT FINAL buffer's
// values are the window's timestamp then its results in the query's value
// format, one column per aggregate named after its accumulator (the
// group key is in the buffer key), and a sliding window's raw rows the
// timestamp then the calls' arguments named as the GROUP BY repartition
// topic names them, each under its own changelog's subjects (protobuf
// with wrapped scalars, so a NULL stays NULL).
// A stream–table, table–table or foreign-key join's table store holds
// timestamp ‖ the row's non-key columns in the table's value format,
// under its changelog's value subject (a foreign-key response carries
// the right store's entry as stored; the staleness hash digests the
// left row's JSON, whatever the store's format). These stores (aggregate,
// EMIT FINAL buffer, sliding raw rows, join table stores) keep the
// timestamp in Pebble only, as Kafka Streams' timestamped stores do: they
// are TimestampInRecord (StoreSpec), so their changelog records' values
// are the serialized value alone, a registry format's magic byte first
// (a Confluent deserializer, or ksqlDB reading
// `…-Aggregate-Materialize-changelog`, reads them), the timestamp is the
// record's, and a restore puts it back in front (the buffer's stream
// time, a bare timestamp, is a record of its own key with an empty value,
// not a null one, at that time: compaction keeps its latest and never
// takes it for a tombstone; Kafka Streams' suppress buffer keeps no
// stream time, see `streamTimeKey`). An as-of join's
// versioned table store keys each version by the table's key (in the
// format its rows arrive keyed in) then its time, its rows in the
// table's value format, and its grace buffer holds the stream rows in
// the stream's value format, under their changelogs' subjects. A
// foreign-key join's side stores are keyed in the format each side's
// rows arrive keyed in, and its subscription store by len(fk) ‖ fk ‖
// left key in those bytes (Kafka Streams' CombinedKey; its values,
// hash ‖ partition, are sqlstream's own). Its registration and response
// topics are keyed under their own `<topic>-key` subjects (the foreign
// key in the right table's key format, placed by the bytes the right
// table is keyed in; the left key in the left table's), as ksqlDB's
// KsqlTopic of each internal topic, so a standard deserializer reads
// their keys; their values, and the subscription store's, are
// sqlstream's own (`join_fk_ops.go`): no version byte, a length-prefixed
// FNV-128a hash where Kafka Streams' SubscriptionWrapper and
// SubscriptionResponseWrapper have a flag bit and 16 bytes of Murmur3,
// the left partition before the left key (after it in Kafka Streams'),
// a found byte and the right store's entry (timestamp first) for the
// right value, and only hash ‖ partition in the store. A Kafka Streams
// application (ksqlDB's queries included) cannot read these values, nor
// sqlstream theirs, so an FK join is not taken over from ksqlDB in
// place; the registration records are placed by the right table's key bytes, not
// by their own key's (Kafka Streams' default partitioner), which differ
// when a registry format writes another subject's schema id. A global
// table's local copy (no changelog: the table's topic is it, as for
// Kafka Streams' global store) keeps its rows in the table's own formats
// where they need no registry, JSON otherwise, decoded and re-encoded
// where Kafka Streams copies the topic's bytes, and its offsets in the
// rows' Pebble batch where Kafka Streams writes a .checkpoint file after
// the flush (`join_global.go`); it is local only, so no topic shows it.
// A foreign-key join whose right table is keyed in a registry format
// copies that table through `RightSourceKeyed-SelectKey-repartition` into the left's key format (as
// ksqlDB's PreJoinRepartitionNode), so the foreign keys the left side
// writes are the bytes the right rows are keyed and partitioned by. Each
// command records `internalFormats: "sources/5"` (commands recorded with
// `"sources/4"` or before write a JSON GROUP BY repartition topic's
// arguments under their accumulators' names, Options.LegacyRepartitionNames,
// where new ones write compact names, compactPrep; those with
// `"sources/3"` read the sides of windowed table joins from their own
// topics; those with `"sources/2"` also keep their stream–stream join store numbers; those with
// `"sources"` keep their FK joins unreformatted, planner.Defaults.
// LegacyRegistryJoinSteps) and `storeFormats: "query/3"`; queries of
// commands recorded before the first keep JSON internal topics (and the
// kept side's key format on join repartition keys, as they had), before
// the second JSON aggregate store values by position (`STATE_n`) and
// JSON join table store values, and those recorded with `storeFormats:
// "query"` JSON aggregate store keys, EMIT FINAL buffers of whole rows
// by position, JSON sliding raw rows, JSON as-of join stores, JSON
// foreign-key join store keys, JSON global-table copies and a table
// aggregation's input rows (`Aggregate-Source-Materialize`, else keyed by
// the table key in the source's key format, rows in its value format,
// under its changelog's subjects) in JSON under the record's key bytes
// (Options.LegacyStoreKeysJSON), and those recorded with `"query/2"` (or
// before) the timestamp in front of those stores' changelog values
// (Options.LegacyChangelogTimePrefix),
// so an upgrade reads the topics and stores they wrote. A registry
// that does not answer (a schema to fetch or to register) fails the task,
// which redoes the work since its commit: reading or writing an internal
// topic or a sink never skips a row for it. Windowed sink records are
// placed by murmur2 of their inner key, as Kafka Streams'
// WindowedStreamPartitioner places them (`OutRecord.PartitionKey`); legacy
// queries keep placing them by the whole windowed key, where their windows'
// earlier updates are.
//
// # Upgrades that keep state
//
// An upgraded query (CREATE OR REPLACE … AS SELECT, same query id, so
// the same application id) runs its new topology on the old one's stores
// and internal topics. Their names depend only on what the state is
// (the aggregation's and join's fixed node names, the join step's
// prefix and number of re-keyed sides), never on the projection, HAVING,
// the aggregate list, a filter before the aggregation or a join's
// residual condition, so those changes keep every name
// (`testdata/state_diff`). `CompareState(old, next)` lists the stores,
// topics and accumulators kept, added and dropped, and refuses
// (`*StateRefusal`, with what to do instead) a change the stored state
// cannot follow: the GROUP BY key, the window, EMIT CHANGES/FINAL, the
// aggregation's input kind, a join's shape, type, sides, keys or window,
// an output column computed by another call, aggregates added to a table
// aggregation (a new accumulator would retract rows it never added) or a
// sliding window (its raw rows hold the old calls' arguments), and any
// change of the aggregates when the store is read by position
// (DELIMITED, KAFKA, PROTOBUF_NOSR, legacy `STATE_n` stores, legacy
// EMIT FINAL buffers and sliding raw rows), and a PROTOBUF field number
// given another type (an accumulator's, a buffered result's, a raw
// argument's: add new aggregates at the end). Whether a kept subject
// takes its new schema is its registry's
// answer under the subject's own rule (BACKWARD, FORWARD, FULL, their
// TRANSITIVE forms, NONE): the builder records the schema each internal
// subject's codec registers (`subject_schemas.go`), `SchemaChanges(old,
// next)` lists the kept subjects whose schema changes, and the runtime
// asks the registry about each before the upgrade is recorded, refusing
// it with the subject and the rule (an aggregate added to a JSON_SR
// store under BACKWARD, one dropped under FULL). Old rows
// are read by column name (`agg_state.go`): a kept aggregate finds its
// accumulator, a new one starts from its initial value and counts only
// records after the upgrade, a dropped one is ignored and leaves a row
// at its next update; an EMIT FINAL window buffered before the upgrade
// and closed with no record after it emits a new aggregate's initial
// result (COUNT 0, SUM 0, COLLECT_LIST [], MAX NULL), as a pull query
// shows that window, not NULL (`upgrade_final_test.go`); one with a
// record after it was buffered again from its accumulators, whole.
// Rows of both layouts may sit in the store and the
// changelog, so a restore after the upgrade rebuilds the same state
// without a version or a rewrite (`upgrade_state_test.go`). The GROUP BY
// repartition topic names each argument after its accumulator too, so
// records in flight at the switch reach the right aggregate.
package physical
