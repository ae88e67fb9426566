// Package connect is a small client of Kafka Connect's REST API, the
// endpoints ksqlDB's connector statements use (its DefaultConnectClient):
//
//	CREATE SOURCE|SINK CONNECTOR ─► PUT  /connector-plugins/{class}/config/validate
//	                                POST /connectors
//	SHOW [SOURCE|SINK] CONNECTORS ─► GET /connectors, /connectors/{n}, /connectors/{n}/status
//	SHOW CONNECTOR PLUGINS        ─► GET /connector-plugins
//	DESCRIBE CONNECTOR            ─► GET /connectors/{n}/status, /connectors/{n}, /connectors/{n}/topics
//	DROP CONNECTOR                ─► DELETE /connectors/{n}
//
// A request is tried up to three times while Connect cannot be reached
// or answers 5xx or 409 (a rebalancing worker), as ksqlDB's client does;
// an answer with another unexpected status is an *Error carrying the
// status and Connect's body (ksqlDB puts the body in its messages: "Failed
// to list connectors: {…}"); a Connect that cannot be reached is an
// *UnreachableError ("Connect to URL failed: …"). The types mirror
// Connect's JSON (ConnectorInfo, ConnectorStateInfo, ConfigInfos), which
// ksqlDB's REST entities embed as they are.
//
// The package imports no other sqlstream package: the engine reads the
// URL and timeout from runtime/props and turns answers into api entities.
package connect
