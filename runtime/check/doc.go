// Package check holds the checks that refuse a statement before anything
// is created, recorded in the command topic or changed in the catalog,
// in ksqlDB's words: a DROP's source and the queries still using it, the
// persistent query limit, a query reading its own sink, and whether an
// upgrade in place keeps its stores; and whether ksqlDB would run a push
// query as a scalable push query. It sees queries as Query values
// (id and plan) the engine takes under its lock, never the engine.
//
//	DROP STREAM|TABLE ─► Drop ─► no such source / read-only DELETE TOPIC / wrong kind
//	                         └─► INSERT INTO readers and writers: terminate them first
//	                         └─► CREATE … AS SELECT readers: drop their sinks first
//	                         ─► owner: the query that ends with the source
//	CREATE … AS SELECT, INSERT INTO ─► NotOwnSink, Capacity
//	CREATE OR REPLACE (upgrade)     ─► NotOwnSink, KeepState (physical.CompareState)
//	SELECT … EMIT CHANGES           ─► ScalablePush (would ksqlDB run it as one?)
package check
