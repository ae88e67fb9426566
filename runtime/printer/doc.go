// Package printer renders the records of PRINT topic as ksqlDB prints
// them: a header naming the formats the first record's key and value
// could be in, then one line a record (rowtime, key, value, partition).
// Bytes in the schema registry's wire format whose schema id the
// registry serves are shown by that schema (AVRO, PROTOBUF, JSON_SR);
// other bytes as text when they are, 4- and 8-byte keys as big-endian
// integers, anything else as hex. The engine reads the topic and hands
// each record here (runtime/print.go).
//
//	PRINT topic ─► the engine reads the topic ─► Printer.Header (first
//	                                             record only)
//	                                          └► Printer.Line ─► one row
//	                                                             a record
package printer
