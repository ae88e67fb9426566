// Package qtt is the query test runner behind `sqlstream test`: it runs
// ksqlDB's query-validation tests (QTT JSON files) and ksql-test-runner
// style tests (a SQL file, input and output record files) against the
// engine, through the small Driver interface the engine implements.
//
//	QTT files/folders ──ReadFile──► File{Tests} ──Expand──► []*Variant
//	  (// comments stripped)         (one per "format" × "config" entry,
//	                                  {FORMAT}/{CONFIG} substituted)
//	                                            │ --filter, --only-easy
//	                                            ▼
//	                 runJobs: N workers, one fresh Driver per variant,
//	                 panic → failure, timeout → failure
//	                                            │
//	      ┌─────────────────── runOn(variant, driver) ─────────────────┐
//	      │ Execute each statement (a negative test passes when the     │
//	      │ last one, or an input record, fails)                        │
//	      │ inputs ──serdes (per topic: the source's key/value format)──► Produce
//	      │ Drain ──serdes──► JSON-ish values ──CompareValues──► outputs per topic
//	      │ Sources/Topics ──► post.sources, post.topics checks         │
//	      └─────────────────────────────────────────────────────────────┘
//	                                            │
//	                                            ▼
//	      markDeviations: variants on the deviation list (deviations.go)
//	      become "deviated", with the list's reason
//	                                            │
//	                                            ▼
//	      report: per-file table (with the format each file was read
//	      as), failing variants, deviations,
//	      "qtt: N passed, M failed, K skipped[, D deviations]"
//	      (--json: machine-readable results); exit 1 when any failed
//
// Files of another Format (qtt/rest's RQTT files, qtt/sqltest's SQL test
// files: a Format detects its files by content or extension) become Jobs
// that bring their own run function in place of runOn; they share the
// workers, the skipping, the timeout, the deviation list and the report.
// Folders are searched for *.json and *.sql files.
//
// Record conversion follows each topic's source: JSON values are written
// exactly as the test gives them, object keys in the file's order (they
// may deliberately not match the schema), DELIMITED as the text given, KAFKA through sql/format's codec,
// windowed keys with the Kafka Streams window suffix; topics no source
// references carry raw JSON. Comparison is per topic and in order: object
// field names case-insensitive, DOUBLE within 1e-6, DECIMAL exact (scale
// included), timestamps and windows when the test gives them, headers
// always (none given: none expected), tombstones as null values.
// AVRO, PROTOBUF, PROTOBUF_NOSR and JSON_SR go through the engine's own
// codecs (registry_side.go): each variant has an in-memory registry
// holding the schemas its topics declare (with their ids), inputs are
// written with the schema the engine registered, outputs read by each
// record's schema id.
//
// # Deliberate deviations from ksqlDB
//
// Where ksqlDB's behaviour contradicts a contract of ours, we keep the
// contract. `qtt/deviations.go` holds the one list (file, test name,
// reason) of the conformance tests this makes differ: their variants still
// run, `sqlstream test` reports them under "deviations" with the reason and
// what actually happened, and counts them as neither passed nor failed.
//
//   - **EMIT FINAL never loses a window.** ksqlDB keeps EMIT FINAL windows
//     for size + grace, and a window whose close and expiry fall into one
//     advance of stream time is dropped unemitted (in `suppress.json`, "final
//     results for tumbling windows with large jump" expects no output at
//     all; seven other variants expect only the windows that stream time
//     happened to hit exactly at their close). We emit every closed window
//     before expiring it (`runtime/testdata/run/emit_final`).
//
//   - **A MAP has no order.** REDUCE, MAP_KEYS and the other functions that
//     turn a MAP into a sequence visit its entries in `java.util.HashMap`'s
//     bucket order, as ksqlDB does, so that results match; keys that share a
//     bucket come in key order, where Java keeps the order the JSON decoder
//     inserted them in. Our maps do not record insertion order, so a REDUCE
//     whose lambda is not commutative can differ (`reduce-map.json`, "reduce
//     map with double").
//
//   - **Test topics have the partition counts the engine would give
//     them.** ksqlDB's test harness creates every topic a test names, its
//     output records' topics included (before any statement), with 4
//     partitions unless told, yet runs all of them as one partition
//     (TopologyTestDriver). The QTT runner creates topics as the engine would
//     (1 partition unless declared; a sink copies its source's), so records
//     keep one order in memory and on a broker (with ksqlDB's counts, 16
//     more in-memory and some 300 more `--broker` variants fail on partition
//     order). Two tests rest on the harness's counts: `joins.json` "table
//     join pipeline" (a join of 4 and 1 partitions, which fails as in
//     ksqlDB) and `fk-join.json` "Should allow partition count mismatch"
//     and "Should allow format mismatch without repartitioning" (the sink
//     has its left source's 1 partition, not the harness's 4).
//
//   - **An unset proto3 scalar reads as its default.** `protobuf.json`
//     "should not filter out bytes" leaves the bytes field c2 unset and
//     expects "c2": null; sqlstream reads empty bytes (as it reads an unset
//     string as "", which ksqlDB's tests expect). ksqlDB passes the test
//     only because its comparator looks the lower-case name up exactly and
//     takes the missing field for the null; the records written are the
//     same bytes (an absent field).
//
//   - **A script the conformance data does not hold.** `test.sql`'s "basic
//     test with run script" runs `RUN SCRIPT '/test-script.sql'`, a file of
//     ksqlDB's own test resources that is not among its SQL test files; the
//     conformance data is never copied into the project, so the runner
//     reports the script missing (with the places it looked) as a test
//     error, the class of failure ksqlDB's runner gives a script it cannot
//     read.
//
//   - **An upgraded table filter leaves no stale row.** After CREATE OR
//     REPLACE changes the WHERE of a table query, ksqlDB judges the old
//     value of an updated key by the new filter, so a row the sink holds
//     and the new filter refuses stays there (ksqlDB issue #6493, noted in
//     the tests themselves). sqlstream's filter, which knows no old value
//     of a source table, deletes the key downstream: the sink holds only
//     rows the new filter accepts (three tests of
//     `query-upgrades/filters.sql`).
//
//   - **An overflowing SUM skips its record, not the query.** A SUM
//     over DECIMAL(p, s) whose total needs more than p − s integer digits
//     is ksqlDB's "Numeric field overflow": ksqlDB throws from the
//     aggregate, the query dies and dies again on the same record after
//     every restart. sqlstream writes a processing-log entry (topic,
//     partition, offset, the message) and skips that record, the group
//     keeping its last sum (`sum.json`, "sum decimal with overflow" and
//     "sum decimal should overflow with cast to lower precision"; the
//     outputs before the overflow are ksqlDB's).
//
// Differences that no conformance test exercises, chosen where ksqlDB's
// behaviour would surprise or endanger a user:
//
//   - A table function in a pull query is an error ("Pull queries don't
//     support table functions"); ksqlDB has no rule for it.
//   - With `ksql.query.push.v2.enabled` a push query ksqlDB would serve as a
//     scalable push query (one source written by exactly one persistent
//     query, no GROUP BY/WINDOW/HAVING/PARTITION BY, no ROWPARTITION or
//     ROWOFFSET, reading from latest) is named `SCALABLE_PUSH_QUERY_<uuid>`
//     as in ksqlDB, but runs as any other push query, on the source's topic
//     from latest, rather than tapping the writing query
//     (`runtime/scalable_push.go`); its rows are the same, except that a
//     record with a NULL key is delivered, where ksqlDB's scalable push
//     queries drop it (unlike its other push queries).
//   - A `/query` header lists the columns in the order of the rows; for a
//     pull query on a source table with a HEADER column, ksqlDB's header
//     string lists that column (marked `HEADER('k')`) before the value
//     columns that its rows carry first.
//   - A POST from a foreign `Origin` (or one a browser marks cross-site in
//     `Sec-Fetch-Site`) or, on a loopback listener, a foreign `Host`
//     (GETs too: `/info`, `/clusterStatus`, `/metrics`) gets 403 (`server/origin.go`): ksqlDB accepts both, which lets any web page run
//     statements on a local server. Like ksqlDB, any body Content-Type is
//     accepted otherwise, so its documented curl commands work verbatim.
//   - The first pull query on a CTAS table waits (bounded by
//     `sqlstream.query.pull.ready.wait.ms`, 30 s) until the table's query is
//     RUNNING and has committed its inputs' end offsets, then answers, or
//     answers error 50302 "not ready yet" (`runtime/pull_ready.go`); ksqlDB
//     answers an empty table while the query starts. `/chc/ready` is 503
//     until no query restored at startup is PENDING; ksqlDB's is always 200.
//   - Statements written into the command topic by anything but a server of
//     this service id, and signed records appended again, are refused
//     (`runtime/commandlog/signing.go`, `runtime/commandlog/chain.go`); a server
//     that cannot verify a signed command topic refuses to start, where
//     ksqlDB would start with an empty catalog.
//   - `/healthcheck` answers without authentication, for probes.
//   - A join of a windowed table with a windowed table or stream of the
//     same window type and size, keyed in a registry format (AVRO,
//     PROTOBUF, JSON_SR), runs: each table is copied through a
//     repartition topic with its windowed key in the left's key format
//     (`planner/join_key_format.go`, windowedRepartition), so rows whose
//     keys two producers wrote under different schema ids, hence into
//     different partitions, still meet. ksqlDB refuses the statement
//     ("does not support joins on windowed sources with
//     Schema-Registry-enabled key formats"; a windowed table cannot be
//     repartitioned there), as it refuses any persistent query over a
//     windowed table, which sqlstream runs. Commands written before this
//     plan (`internalFormats` older than "sources/4") keep theirs.
package qtt
