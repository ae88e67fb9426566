// Package api holds the result entities of sqlstream's REST API, shaped
// byte for byte like ksqlDB's: the polymorphic entities of POST /ksql
// (tagged by "@type"), the error bodies, the request bodies, and the rows of
// the query endpoints. It is plain data plus JSON encoding; the engine fills
// these values and the server and REPL move them over HTTP.
//
//	engine ──Execute──► []Entity ──server──► [{"@type":"streams",…}, …] ──► repl
//	       ──Query────► RowStream (QueryHeader + Row…) ──server──► /query, /query-stream
//	       ──errors───► *StatementError / *ErrorMessage ──► HTTP status = code/100
//
// Marshal encodes like Jackson does for ksqlDB: no HTML escaping, "@type"
// first, empty lists as [] (never null) where ksqlDB always sends a list.
// DecodeEntities and DecodeError are the client side (used by the REPL).
// QueryTasks (GET /tasks), ClusterTasks (GET /clusterTasks) and
// ClusterMetrics (GET /clusterMetrics) are sqlstream's own, with no
// ksqlDB counterpart.
package api
