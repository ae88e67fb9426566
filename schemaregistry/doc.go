// Package schemaregistry is an embedded, Confluent-compatible schema
// registry: the REST API Confluent's serializers, ksqlDB and franz-go's
// sr.Client use, with real compatibility checks, kept in a compacted
// single-partition _schemas topic in Confluent's own record shapes. It is
// a leaf: it imports no other sqlstream package; cmd/sqlstream starts it
// beside the embedded broker and hands its URL to the engine as
// ksql.schema.registry.url.
//
//	HTTP (chi)                              handler*.go
//	 │  register / lookup / delete / config / mode
//	 ▼
//	Registry ── parse (hamba/avro, protocompile,     parse.go
//	 │           santhosh-tekuri/jsonschema)
//	 │        ── compatibility per level             compat*.go
//	 │  append record, wait until the tail applied it
//	 ▼
//	_schemas (1 partition, compacted)               log.go, records.go
//	 │  tail: every record in log order
//	 ▼
//	state: subjects → versions, ids, configs, modes  state.go
//
// # REST surface
//
//	GET  /schemas (?subjectPrefix, latestOnly, deleted), /schemas/types,
//	     /schemas/ids/{id}[/schema|/subjects|/versions]
//	GET  /subjects, /subjects/{s}/versions[/{v}[/schema|/referencedby]]
//	POST /subjects/{s}/versions (register), /subjects/{s} (lookup)
//	DELETE /subjects/{s}[?permanent=true], /subjects/{s}/versions/{v}[?permanent=true]
//	POST /compatibility/subjects/{s}/versions[/{v}] (?verbose=true for messages)
//	GET/PUT/DELETE /config[/{s}], /mode (GET, PUT), /mode/{s} (GET, PUT, DELETE) (?defaultToGlobal=true)
//
// Answers are application/vnd.schemaregistry.v1+json; a request body is
// read as JSON whatever its Content-Type (application/json, the
// registry's own type, or none), as Confluent does. Errors are
// Confluent's {"error_code": 40401, "message": …} with its codes
// (errors.go).
//
// # Persistence and several servers
//
// Every change is a record in the _schemas topic (Confluent's
// kafkastore.topic), keyed and shaped as Confluent writes them: SCHEMA
// {subject, version, magic:1} → {subject, version, id, schemaType,
// references, schema, deleted}; CONFIG / MODE {subject or null} →
// {compatibilityLevel} / {mode}; DELETE_SUBJECT → {subject, version};
// permanent deletes are tombstones. The state is the log replayed in
// order, at start and then by a tail goroutine, so ids and versions
// survive restarts and a Confluent registry could take the topic over.
//
// Servers that share the topic share the registry with no protocol of
// their own: a writer picks the next id and version from its state,
// appends, and reads the log up to its record. The first record in log
// order that takes an id or a (subject, version) wins (state.apply); a
// loser appends the winner's record again (so that compaction, which
// keeps a key's last record, keeps the winner) and retries. Reads first
// catch up with the end of the log, so a server sees what another
// server wrote before it answered.
//
// # Compatibility
//
// BACKWARD (the default), BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE,
// FULL, FULL_TRANSITIVE and NONE, per subject or global. BACKWARD checks
// that the new schema reads the latest live version's data, FORWARD the
// other way round, FULL both; _TRANSITIVE checks every live version. Avro
// uses the specification's resolution rules (hamba/avro); protobuf and
// JSON Schema follow Confluent's named rules as compat_protobuf.go and
// compat_json.go list them. A 409 names the rule and where it broke.
//
// # Deviations from Confluent
//
//   - A schema is stored and served as submitted (JSON compacted), not
//     re-printed in Confluent's canonical form; two submissions get one
//     id when they parse to the same schema (Avro: hamba's full JSON form;
//     protobuf: the compiled descriptor without comments and positions;
//     JSON Schema: the compacted text).
//   - Contexts, schema GUIDs, metadata and rule sets and normalize=true
//     are not supported. IMPORT mode takes the ids and versions a request
//     gives (and requires them), as Confluent's does.
//   - JSON Schema compatibility checks the subset compat_json.go lists.
//   - Writers never forward to a leader: every server writes, and races
//     are settled in log order as above.
package schemaregistry
