// Package sqltest runs ksqlDB's SQL test files, the format of its
// run-ksql-test runner (ksqldb-functional-tests' SqlTestLoader,
// SqlTestExecutor and AssertExecutor), as a qtt.Format: `sqlstream test`
// reads them beside QTT and RQTT files, in one run and one report.
//
//	file.sql ──Detect (.sql, or a --@test: line)──► Parse
//	   │ sql/script splits statements; --@ lines between them are
//	   │ directives: --@test: starts a test, --@expected.error: and
//	   │ --@expected.message: make it negative; RUN SCRIPT is read here
//	   ▼
//	[]test{steps} ──► one qtt.Job per test, on a fresh in-memory engine
//	   │
//	   │ statement      Execute, after the test's SET/UNSET/DEFINE so far
//	   │                (they are per request in the engine, per test here)
//	   │ ASSERT VALUES  the next record of the source's topic (a cursor
//	   │                per topic over qtt.TopicReader: INSERTed records and
//	   │                query outputs alike) must be a row whose listed
//	   │                columns (keys, ROWTIME, values) equal the values
//	   │                given, evaluated and coerced as INSERT VALUES does
//	   │ ASSERT NULL    the next record must be a tombstone with the key
//	   │   VALUES       given (no value columns may be listed)
//	   │ ASSERT STREAM  the source must be what the CREATE in the ASSERT
//	   │   / TABLE      would make: schema, kind, topic, key and value
//	   │                formats and their properties, schema ids,
//	   │                WRAP_SINGLE_VALUE, timestamp column and format
//	   ▼
//	the first failing step ends the test: with no --@expected.* it fails;
//	otherwise it passes when the error is of the expected kind and says
//	what ksqlDB's message says (contains it, ignoring case and our
//	line:column; or ksqlDB's message contains our first line). Unlike
//	QTT files, other wording does not pass: the message is what these
//	tests check, and "not supported yet" would pass every refusal
//
// ksqlDB's runner feeds TopologyTestDriver synchronously, with no
// timeouts; the in-memory engine processes an INSERT before Execute
// returns, so an ASSERT reads what ksqlDB's would. Under --broker the
// runner waits after each INSERT until every query has caught up with its
// inputs (qtt.Settler: their groups' committed offsets at the topics'
// ends; a group not formed yet is waited for), so the queries see the
// records in the file's order, as ksqlDB's test driver feeds them (a
// join of records that share a timestamp saw them in either order
// before), and the driver reads a topic back, up to its end offsets,
// once they have caught up again. Error kinds follow
// ksqlDB's classes: record assertions are java.lang.AssertionError,
// source assertions and statement failures io.confluent.ksql.util.
// KsqlException (statements also KsqlStatementException).
package sqltest
