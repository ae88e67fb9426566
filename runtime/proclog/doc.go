// Package proclog is the processing log: an entry for every record a
// query skipped or dropped (a record that did not deserialize, a late
// record, a bad timestamp), written to the topic
// `<service-id>ksql_processing_log` and readable as the stream
// KSQL_PROCESSING_LOG, in ksqlDB's entry shape (LOGGER, LEVEL, TIME,
// MESSAGE with the record's topic, partition, offset, the error and the
// record in base64). The record is cut to its first 64 KiB and the
// message to 16 KiB, so an entry always fits the broker's message size
// and keeps the place of the whole record. It writes through the
// executor's Cluster and never imports the engine.
//
//	task ─► physical.ProcessingLog ─► Log.LogFor(query id, entry)
//	                                     │ (the server's log too: "record skipped")
//	                                     ▼
//	               a 4096-record queue ─► one writer ─► the topic
//	               (full: the entry is counted lost; on the in-memory
//	               cluster written at once)
//
// An entry the full queue refuses, or whose write fails, is counted lost
// for its query (Log.Lost: DESCRIBE EXTENDED's
// processing-log-entries-lost, GET /tasks' processingLogEntriesLost,
// /metrics' sqlstream_query_processing_log_lost_total), and after the writer's
// next successful write an entry of TYPE ENTRIES_LOST says how many of
// the query's entries were lost and why the last one was (lost.go).
package proclog
