// Package server is sqlstream's HTTP API, compatible with ksqlDB's REST
// API: the same routes, bodies, status codes and bytes. It is a thin layer
// over an Engine; all SQL work happens behind that interface.
//
//	client ──HTTP/1.1 or h2c (prior knowledge), one port──► Server (chi)
//	   POST /ksql            ──► Engine.Execute ──► [entities…] | statement_error
//	   POST /query           ──► Engine.Query ──► RowStream ──► v1 JSON array (or delimited, or v1 protobuf)
//	   POST /query-stream    ──► Engine.Query ──► RowStream ──► delimited | JSON array | v1 JSON | v1 protobuf
//	   POST /close-query     ──► Engine.CloseQuery
//	   POST /inserts-stream  ──► Engine.Insert per row ──► acks
//	   GET  /info /healthcheck /status[/t/e/a] /is_valid_property/p
//	   GET  /chc/live /chc/ready (probes.go)  /metrics (http_metrics.go)
//	   GET  /tasks            ──► TaskLister: this server's tasks per query (sqlstream's)
//	   GET  /  /console/…     ──► the web console (WithConsole) for a browser; others: / ──► /info
//	   GET  /schema-registry/… ──► the embedded registry, read only (WithSchemaRegistry)
//
// HTTP/2 without TLS (h2c, prior knowledge) is served by net/http itself
// (http.Server.Protocols with SetUnencryptedHTTP2), which replaces the
// deprecated golang.org/x/net/http2/h2c wrapper and lets Shutdown reach
// HTTP/2 connections too.
//
// Errors carry ksqlDB error codes; the HTTP status is code/100. Push
// queries write and flush each row as it arrives; a client that goes away
// cancels the request context, which ends and closes the RowStream.
//
// Limits (limits.go): request bodies must arrive within a deadline (408)
// and fit in 32 MiB (413); a push query whose client stops reading is
// back-pressured, then dropped once one write stalls past a timeout.
//
// Extensions to ksqlDB: /inserts-stream also accepts HTTP/1.1 with a
// chunked request body (full duplex), for curl and kcat users; ksqlDB
// answers that with error 40004. POST /query without an Accept header (or
// with */*) answers v1 JSON, as ksqlDB servers before 0.24 and the ksql CLI
// expect; send Accept: application/vnd.ksqlapi.delimited.v1 for the
// delimited format. Accept: application/vnd.ksql.v1+protobuf answers the
// v1 array with the header's protoSchema and each row as protobufBytes
// (sql/format/protobuf.QueryResponse), the shape ksqlDB's pull queries
// answer; push queries get the same shape.
package server
