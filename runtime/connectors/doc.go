// Package connectors runs ksqlDB's connector statements against a Kafka
// Connect cluster (through the REST client of package runtime/connect)
// and answers them as ksqlDB's REST entities. The engine gives it its
// Connect clients (connect.Factory, from ksql.connect.*) with the
// request's Authorization header (Config) and a way to describe the
// sources over a connector's topics (Sources); it holds no engine lock
// while Connect answers, and nothing is recorded: Connect keeps the
// connectors, as in ksqlDB.
//
//	CREATE SOURCE|SINK CONNECTOR ─► exists? ─► validate ─► create ─► CreateConnectorEntity
//	DROP CONNECTOR               ─► delete                        ─► DropConnectorEntity
//	SHOW|LIST [SOURCE|SINK] CONNECTORS ─► list, describe, status  ─► ConnectorList
//	SHOW CONNECTOR PLUGINS       ─► plugins                       ─► ConnectorPluginsList
//	DESCRIBE CONNECTOR           ─► status, describe, topics ─► Sources(topics)
//	                                                              ─► ConnectorDescription
//
// Connect's failures are an *Error, ksqlDB's KsqlRestException: a
// generic error body with Connect's status and body ("Failed to drop
// connector: {…}"), or a 400 saying why Connect did not answer; the
// engine answers it as it is, not as a statement_error.
package connectors
