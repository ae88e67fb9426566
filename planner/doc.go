// Package planner turns statements into catalog entries and logical plans.
//
//	CREATE STREAM/TABLE ──► CreateSource ──► Source (schema, topic, formats)
//	                                            │
//	                                         Catalog
//	                                            │
//	SELECT / CSAS / CTAS / INSERT INTO ──► plan ─┴─► Plan{Root: Node}
//
//	   Sink ◄── Project ◄── [FlatMap] ◄── Filter ◄── Scan(Source)
//	   Sink ◄── Project ◄── [PartitionBy] ◄── Filter ◄── Scan(Source)
//
//	aggregation (aggregate.go):
//	   Sink ◄── Project ◄── [Filter (HAVING)] ◄── Aggregate(group keys,
//	            window, aggregates) ◄── Filter (WHERE) ◄── Scan | Join
//
//	join (join*.go; the rows carry each side's columns qualified ALIAS_COL):
//	   Sink ◄── Project ◄── Filter ◄── Join(type, shape, ON equalities,
//	                                         residual, WITHIN | AS OF)
//	                                     ├── Left:  Scan | Join (an n-way join nests)
//	                                     └── Right: Scan
//
// Plan nodes are plain data (the physical builder turns them into
// processors, Explain prints them). Expressions are compiled here, once,
// by sql/expr against each node's input schema; the projection decides
// which output columns are keys (copies of input key columns) and applies
// ksqlDB's naming (alias, column or field name, KSQL_COL_n; naming.go)
// and its rules for persistent queries (every key selected, a value
// column left, no system column names). Table functions (EXPLODE,
// CUBE_EXPLODE) run in a FlatMap below the projection, which reads their
// synthesized columns.
//
// UnreadColumns (prune_columns.go) walks a single-source plan from its
// root to its scan and returns the stream's value columns no step reads
// (compiled expressions name their columns, expr.Compiled.Columns);
// the physical source decodes only the others, and EXPLAIN lists them
// as the SOURCE's Pruned. Tables, joins and global tables keep all.
//
// The catalog also holds the custom types of CREATE TYPE (TypeRegistry,
// safe for concurrent use): the parser resolves type names through it, so
// sources and CASTs only ever see expanded types. An aggregation over a
// windowed source drops the window, as ksqlDB's re-keying does.
//
// testdata/validations is the table of the checks ksqlDB makes before a
// query runs (its Analyzer, AggregateAnalyzer, Pull/PushQueryValidator,
// LogicalPlanner, plan nodes, EngineExecutor and CreateSourceFactory):
// each row has ksqlDB's message, a statement that triggers it and
// sqlstream's answer, with a status (✓ same text, ~ other words, ✗
// accepted, ext a recorded extension) that TestValidations checks; the
// checks made outside the planner are listed at its top.
//
// Upgrades (upgrade.go, upgrade_query.go): CREATE OR REPLACE of a source
// may only add value columns at the end (checkUpgrade);
// CheckQueryUpgrade decides whether a CREATE OR REPLACE … AS SELECT may
// replace the running query of its sink in place, with ksqlDB's rules in
// their order (the sink as a source, then the plans' enforcing steps from
// the sink down: WHERE and projections are passive), one named rule per
// refusal; the stateful steps (aggregations, joins) are decided in one
// place, statefulUpgrade. testdata/upgrade_query pins every allowed and
// refused change.
//
// Schema-registry formats (schema_registry.go): the planner gives AVRO,
// PROTOBUF and JSON_SR specs their subjects and the registry, refuses them
// without one, and fills in the columns a CREATE leaves out from the
// latest schema of <topic>-value / -key (or KEY_/VALUE_SCHEMA_ID's).
package planner
