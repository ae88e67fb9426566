// Package format holds sqlstream's record serialization formats (ksqlDB's
// serdes) and the JSON rendering of values for the REST API.
//
//	           WITH (FORMAT, KEY_FORMAT, VALUE_FORMAT,
//	                 VALUE_DELIMITER, WRAP_SINGLE_VALUE …)
//	                            │ ParseFormat / ParseDelimiter
//	                            ▼
//	[]types.Column ──► Spec ──► NewKeyCodec / NewValueCodec  (validates the
//	                            │                             format × schema)
//	                            ▼
//	 record bytes ──Decode──► Codec ──Encode──► record bytes
//	                (one Go value per column, see sql/types/value.go)
//
//	JSON       objects matched to columns by name (exact, then upper-cased);
//	           hand-written scanner and appender, no reflection; invalid
//	           UTF-8 in a string is a DecodeError at its first bad byte
//	           (as ksqlDB's Jackson), never replaced; a record's strings
//	           share one copy of its bytes and are boxed in a per-record
//	           arena (sql/format/internal/boxes): a page view
//	           of three strings and a BIGINT decodes in 3 allocations
//	DELIMITED  CSV (commons-csv DEFAULT rules): quotes, "" escapes, empty → NULL
//	KAFKA      Kafka primitive serdes: 4/8-byte big-endian ints, IEEE doubles,
//	           UTF-8 strings, raw bytes
//	NONE       no key columns: decodes nothing, encodes nil
//	AVRO, PROTOBUF, JSON_SR
//	           Confluent's wire format: magic byte 0, 4-byte schema id
//	           (PROTOBUF: then the message-index path), then the payload
//	           (sql/format/avro, sql/format/protobuf, or the JSON codec).
//	           Decoders are compiled once per writer schema id (srCodec's
//	           cache); the encoder writes with KEY_/VALUE_SCHEMA_ID's
//	           schema or registers the columns' schema under Spec.Subject
//	           (<topic>-key / -value) and writes with that id.
//	PROTOBUF_NOSR
//	           bare protobuf, the schema derived from the columns
//
// The registry formats reach a Confluent-compatible registry through the
// SchemaRegistry interface (registry.go); RegistryClient implements it
// over franz-go's sr.Client (ksql.schema.registry.url), keeping schemas by
// id, and for RegistryConfig.MissingRetry (default 5 s) the ids the
// registry did not have: records all naming an unknown id are each a
// DecodeError (so a processing-log entry with topic, partition and
// offset) but ask the registry once an interval; a schema that cannot be
// read as the columns is compiled once per codec. RegistrySchema is
// the schema CREATE and CREATE … AS SELECT register; InferColumns turns a
// registered schema into columns for CREATE without columns; JSONSchemaOf
// prints JSON_SR's schema in the shape Kafka Connect gives ksqlDB's
// columns (oneOf null, connect.index, connect.type). RenderRegistryRecord
// (print.go) renders a wire-format record for PRINT as ksqlDB's
// deserializers print it: Avro as GenericData's toString (avro.Render),
// protobuf as TextFormat's shortDebugString (protobuf.RenderShort),
// JSON_SR as compact JSON.
//
// NewValueDecoder is a value codec that decodes only the columns a query
// reads: JSON (and JSON_SR) checks an unread value's tokens against its
// column's type, Avro and protobuf read past it by the writer schema,
// each with the errors a full decode gives (so a record ksqlDB rejects
// is still rejected), and none of them materializes it (check.go of
// sql/format/avro and sql/format/protobuf; prune_test.go compares them
// with the full decoders). NewTaskValueDecoder is NewValueDecoder for a
// decoder one task owns (the source operator's): JSON strings are then
// copied into a slab and boxed from an arena the decoder keeps across
// records, as NewTaskKeyCodec's KAFKA keys (kafka_keys.go), and so are
// BIGINT, TIMESTAMP and DOUBLE values, so a page view decodes in less
// than 1/8 of an allocation, not 3, and a Nexmark bid in about 1/4, not 4.
//
// Value codecs skip header columns (HEADERS, HEADER('k')), so callers may
// pass Schema.Values() as is. Numbers are written as ksqlDB (Jackson, Java)
// writes them: DOUBLE as Java's Double.toString (2.0, 1.0E7), DECIMAL in
// plain notation at the column's scale.
//
// Windowed keys wrap the key bytes the way Kafka Streams does
// (EncodeWindowedKey / DecodeWindowedKey). AppendRESTJSON renders a value as
// ksqlDB's REST API writes it in rows (TIMESTAMP as text, DECIMAL as a plain
// number); FromJSON and ToJSON convert between generic JSON values
// (encoding/json with UseNumber) and the Go value representation.
//
// A record that fails to decode yields a *DecodeError naming the format, the
// column (path), what was expected and the offending text, ready for the
// processing log; ErrNullRecord marks bytes that spell a null record.
package format
