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
package qtt
