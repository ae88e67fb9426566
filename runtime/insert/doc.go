// Package insert turns the rows a client inserts into records of the
// target source: INSERT INTO … VALUES (the column list resolved as
// ksqlDB does, each value a constant coerced to its column's type, a
// refusal at the value's position in ksqlDB's words; ROWTIME sets the
// record's time) and /inserts-stream rows (JSON, columns matched in any
// case), serialized with the source's key and value formats. The engine
// checks the target (known, not read-only, inserts enabled), evaluates
// the constants and produces the record (runtime/insert.go).
//
//	INSERT … VALUES ─► Values(src, stmt, eval) ─┐
//	/inserts-stream ─► JSONRow(src, row) ───────┴─► Encode(src, row, ts)
//	                                                ─► physical.OutRecord
//	                                                   (partitioned by key)
package insert
