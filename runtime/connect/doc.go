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
// A Factory, built once when the engine starts, makes each statement's
// client as ksqlDB's DefaultConnectClientFactory does: the basic-auth
// header of a credentials file (Credentials, read again when it changes
// if reload is set) or else the request's own Authorization header, and
// the TLS settings of an https Connect (truststore, keystore, host name
// check) read once.
//
// The package imports no other sqlstream package but the internal leaves
// that read its files (internal/javaprops, internal/pemfile): the engine
// copies runtime/props' ConnectConfig into a Config and turns answers into
// api entities. The client is tested against connecttest's fake Connect
// only: no real Kafka Connect runs where sqlstream is tested.
package connect
