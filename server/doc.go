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
//	   GET  /tasks            ──► TaskLister: this server's tasks and figures per query (sqlstream's)
//	   GET  /clusterTasks     ──► ClusterTaskLister: /tasks of every server of the service id (sqlstream's)
//	   GET  /clusterMetrics   ──► ClusterMetricsLister: the engine's /metrics of every server of the service id (sqlstream's)
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
//
// # Security and safe defaults
//
// Everything is off by default and meant for loopback; the server warns at
// start when its API listens beyond loopback without authentication.
//
//   - **HTTP API**: `authentication.method=BASIC` with users in
//     `sqlstream.authentication.users.file` (Jetty's PropertyFileLoginModule
//     lines `user: password,role…`; plain or `MD5:<hex>` passwords),
//     `authentication.realm`, `authentication.roles` (`*`: any); 401 with
//     ksqlDB's body. `/healthcheck` stays open. `listeners=https://…` serves
//     TLS with PEM files (`sqlstream.ssl.certificate.location` and
//     `.key.location`, or one `ssl.keystore.location`); JKS/PKCS12 are not
//     read. The REPL takes `--user/--password`, URL userinfo and `--ca-file`.
//   - **Kafka clients**: `security.protocol`, `sasl.mechanism` (PLAIN,
//     SCRAM-SHA-256/512), `sasl.jaas.config`, PEM `ssl.truststore.location` /
//     `ssl.keystore.location` are read once into `props.Kafka` and become
//     franz-go options in `runtime/kafkasec`; `exec.Kafka` makes every client.
//   - **Secrets** (`*password*`, `*secret*`, `sasl.jaas.config`,
//     `basic.auth.user.info`, inline PEM keys) print as `[hidden]` in SHOW
//     PROPERTIES, EXPLAIN and property errors (`runtime/props/secrets.go`).
//   - **Command topic**: every record carries an HMAC-SHA256 header, and
//     since record format 2 the signature also covers the signature of the
//     record before it (`runtime/commandlog/chain.go`): a server runs a record
//     only when it is the next in that chain, so a signed record appended
//     again (an old `DROP STREAM x DELETE TOPIC` after `x` was re-created) or
//     out of order is refused and logged, live and on every restart. The key
//     is `sqlstream.command.topic.secret`, else a random 0600 file
//     `command-topic.key` beside the state directory (so losing the state
//     keeps it). The first start on a topic appends a chain-start record,
//     which binds the topic to its key: a server that finds signed records
//     and no key (a lost key file, a wiped data directory beside an external
//     broker, a second server of the service id without the secret) or none
//     that verifies with its key (another secret) refuses to start, saying
//     what to do, and never makes a key over such a topic. Servers sharing a
//     service id share the key by configuration (the secret), not through
//     Kafka: handing the key out through a topic, as Kafka Connect does its
//     session key, would let any client that can read that topic sign
//     commands, which is the attack signing exists for. A DROP … DELETE TOPIC
//     deletes the topic only on the server that runs it (ksqlDB's
//     TopicDeleteInjector), not when applied from the command topic.
//     Migration: a topic written before signing is fenced once (the first
//     start that signs writes `command-topic.signed-from`, the end offset
//     when no record is signed, else 0; records below it run unsigned with a
//     warning), and format 1 records (the release before the chain) run only
//     before the chain start; any legacy record after it is refused. Trust
//     on first use: a data directory created over a foreign-written topic
//     accepts its legacy prefix as it is at that moment; all servers of a
//     service id move to format 2 together. The start's read of the topic
//     ends at an empty fetch once the last stable offset is at the end
//     offset seen (a torn tail the broker's snapshot still counts; the
//     embedded broker aborts a transaction whose commit marker was torn off,
//     with a marker, before the server connects, so the commands written
//     after it stay readable), and is
//     bounded by `sqlstream.command.topic.replay.timeout.ms` (default 2 min;
//     a transaction left open there fails the start with what holds it).
//   - **Partitions**: `sqlstream.topic.partitions.max` (default 1000, server
//     only) caps PARTITIONS on CREATE and, in the embedded broker,
//     CreateTopics/CreatePartitions from any client.
//   - **Embedded broker**: with `authentication.method=BASIC` it takes
//     SASL/PLAIN and SCRAM from the API's users and refuses anonymous clients;
//     ACLs keep the command topic and the service id's internal topics,
//     consumer groups and transactional ids to the engine, which authenticates as the broker's internal user (random
//     password per run, `broker/auth.go`). No client ever deletes a command
//     topic or `_schemas` (`broker/internal_topics.go`). A listener beyond
//     loopback without authentication logs an error with the bound address
//     (a warning, not a refusal, as for the HTTP API: containers need
//     0.0.0.0). `/healthcheck`'s commandRunner is red, with an `error`, when
//     the command topic is gone or unreadable (`runtime/health.go`). A
//     partition directory or `groups.log` deleted after a clean shutdown
//     refuses the start (`broker/missing_data.go`).
//   - **Statements per request**: `sqlstream.request.max.statements`
//     (default 1000, server only) caps the statements of one /ksql request,
//     refused whole with a 400 before any is parsed (`runtime/batch.go`).
//
// # Observability
//
// `DESCRIBE … EXTENDED` shows records processed, processing-log entries,
// late records, local store partitions (keys, bytes), restoration progress
// and each windowed task's stream time and open windows. `GET /metrics`
// exports the same per query in Prometheus' format, beside the Go runtime,
// process and HTTP request metrics (`server/http_metrics.go`); `GET
// /clusterStatus` lists the stores and their restoration lag. `GET
// /chc/ready` is 503 until no query restored at startup is PENDING
// (`runtime/readiness.go`); logs are slog text or, with `--log-format json`,
// JSON lines.
package server
