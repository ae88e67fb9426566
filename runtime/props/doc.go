// Package props is the engine's configuration: every property it accepts
// (one table: name, type, default, doc), the names of those properties,
// and the typed configurations parsed from them once.
//
//	server config ──► Check (each key) ──► Server (defaults + given)
//	                                          │
//	                                          ▼
//	                        NewEngineConfig ─► EngineConfig (read once at
//	                                          │  engine start)
//	SET / streamsProperties ─► CheckOverride ─┤
//	                                          ├─► NewSessionConfig ─► SessionConfig
//	                                          │   (read when a session starts and
//	                                          ▼    after each SET and UNSET)
//	                        NewQueryConfig ──► QueryConfig (read once when
//	                                             a query starts; every task
//	                                             is built from it)
//
// The table (table.go) validates the server's configuration, SET and a
// request's streamsProperties with ksqlDB's messages (Error), answers GET
// /is_valid_property, fills SHOW PROPERTIES (listing.go: every property,
// unset ones null, as ksqlDB's ListPropertiesExecutor) and the sample
// configuration (docs.go). Every ksql.* setting of ksqlDB's KsqlConfig has a row
// (ksql.go holds those no other file does), with one of three answers:
// honoured, accepted with no effect (inert, the doc says why), or refused
// at any value but its default with a message that names it and says why
// (ProblemRefused). TestKsqlConfigChecklist compares the table with
// KsqlConfig's names and defaults (testdata/ksqlconfig.tsv) and pins each
// answer in testdata/checklist. Names are declared in names.go only; defaults whose reason
// needs words are in defaults.go. Secrets (secrets.go) are shown as
// [hidden] wherever a value is printed. The Kafka clients' TLS and SASL
// settings are read into EngineConfig.Kafka (security.go), the JAAS
// entry's credentials included, so a SASL protocol without them is an
// Error naming sasl.jaas.config when the engine starts. The Kafka Connect
// client's settings (ksql.connect.*: credentials file, TLS) are read into
// EngineConfig.Connect (connect.go). The Kafka client and Kafka Streams
// settings ksqlDB passes through (clients.go: acks, compression.type,
// max.poll.records, …) are accepted bare, under ksql.streams. and under
// a client's prefix (consumer., producer., admin., main.consumer., …),
// with Kafka's types, ranges and values, and listed with Kafka's
// defaults (those of Kafka 3.4's ConfigDefs, testdata/kafkaclients.tsv,
// each row with its class); the honoured ones are read into
// QueryConfig.Clients (clients_config.go) when set, the rest are inert.
// Each consumer reads its own prefix first, then consumer., then the bare
// name: the main consumer (main.consumer.), the restore consumer
// (restore.consumer.: changelogs, standbys) and the global consumer
// (global.consumer.: global tables). TestKafkaClientChecklist pins each
// one's status (testdata/kafkaclients) and fails when the table and
// Kafka's ConfigDefs disagree; TestClientPrefixesRead pins which prefixed
// spellings are read and which have no effect (testdata/kafkaprefixes).
// A client's SET of one of ksqlDB's ImmutableProperties (bootstrap.servers,
// every ssl.* setting, ksql.extension.dir, …) is refused in the words of
// ksqlDB's LocalPropertyValidator (ProblemImmutable), as is
// auto.offset.reset=none.
//
// props imports no other runtime package: the engine and its
// subpackages read their settings from it, never the other way round.
package props
