// Package naming names persistent queries and their application ids,
// as ksqlDB does: the query ids (CSAS_<sink>_<n>, CTAS_<sink>_<n>,
// CST_<table>_<n>, INSERTQUERY_<n> or INSERT INTO's QUERY_ID, checked in
// ksqlDB's words; a push query's transient_<source>_<n> or
// SCALABLE_PUSH_QUERY_<uuid>) and the application id each runs under (its consumer
// group, the prefix of its internal topics and store ids):
//
//	[_confluent-ksql-]<ksql.service.id><ksql.persistent.prefix><query id>
//	 └ Internal: sqlstream.internal.topic.naming=ksqldb or the QTT driver
//
// The command that creates a query records the prefix (Names.AppPrefix),
// so a query never changes names; a command recorded before prefixes
// were keeps <service id>query_<id> (CommandAppID). New checks the prefix
// is legal in topic names at the start; CheckDerived checks a new
// query's internal topic names before anything is created or recorded.
package naming
