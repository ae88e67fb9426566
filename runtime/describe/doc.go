// Package describe renders what SHOW, LIST, DESCRIBE and EXPLAIN answer
// as ksqlDB's REST entities, from views the engine takes under its lock:
// the catalog's sources, each persistent query as a Query (plan,
// topology, states, errors, and its figures read only when shown), the
// transient queries, the property table and the function registry. It
// never sees the engine, a runner or the state DB: the engine fills the
// views, this package only words them.
//
//	engine (e.mu held) ──► []*planner.Source ─┐
//	                   ──► []describe.Query ──┼─► Sources, Describe, Source ──► SourceDescription(s), StreamsList, TablesList
//	                   ──► []Transient ───────┤   Queries, Description ───────► QueriesList, QueryDescription(List)
//	                   ──► Topics (cluster) ──┤   TopicList (Hidden) ─────────► KafkaTopicsList[Extended]
//	                   ──► props.Table ───────┤   Properties, Variables ──────► PropertiesList, VariablesList
//	                   ──► functions.Registry ┤   Functions, Function ────────► FunctionNameList, FunctionDescriptionList
//	                   ──► custom types ──────┘   Types ──────────────────────► TypeList
//
//	EXPLAIN <statement> ─► Statement(plan, topology)
//	EXPLAIN CREATE OR REPLACE / INSERT … WITH (QUERY_ID) of a running
//	query ─► Plan + Upgrade(report, old, new topology, sink) or Refused(err)
//
// DESCRIBE EXTENDED sums the figures of the queries reading or writing a
// source (records processed, processing-log entries, late and skipped
// records, standby feed errors, each store's restore, size and stream
// time).
package describe
