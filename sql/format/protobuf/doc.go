// Package protobuf is the payload codec of ksqlDB's PROTOBUF and
// PROTOBUF_NOSR formats: ksqlDB's schemas for a row, the columns ksqlDB
// infers from a registered schema, and decoders and encoders compiled once
// per schema that read and write protobuf wire data straight into row
// slots. Payloads only: the Confluent wire header (magic byte, schema id,
// message indexes) is the caller's (sql/format), as is the registry.
//
//	[]types.Column ──Schema──► proto3 text (Confluent canonical form,
//	                           ConnectDefault1 { … }, what ksqlDB registers)
//	schema text + Refs ──compile (protocompile, in memory)──► descriptors
//	        │                        │
//	        ├──Columns──► []types.Column (ksqlDB's inference)
//	        ├──MessageIndexes / MessageByIndexes (the header's index path)
//	        ├──NewDecoder(writer, cols) ─► Decoder: payload ─► []any
//	        └──NewEncoder(schema, cols) ─► Encoder: []any ─► payload
//
// Schemas compile with protocompile from memory: the schema itself,
// its references (Refs, by import path), google/protobuf/*.proto, and
// small built-in copies of Confluent's confluent/meta.proto and
// confluent/type/decimal.proto and of google/type/date.proto and
// timeofday.proto (compile.go).
//
// The data path uses no dynamic messages: a decoder is a table by field
// number of slot decoders over protowire (decode.go, slot.go,
// decode_value.go), an encoder a list in field-number order (encode.go,
// encode_value.go). Type mapping, as ksqlDB's:
//
//	BOOLEAN bool            INTEGER int32 (sint32, sfixed32)
//	BIGINT  int64 (uint32, uint64, sint64, fixed, sfixed)
//	DOUBLE  double (float)  STRING string (enum, by name)
//	BYTES   bytes           DECIMAL confluent.type.Decimal
//	TIMESTAMP google.protobuf.Timestamp   DATE google.type.Date
//	TIME    google.type.TimeOfDay         ARRAY repeated
//	MAP     map<string,V> or repeated …Entry {key = 1; value = 2}
//	STRUCT  nested message (a oneof reads as STRUCT <oneof>_<index>)
//
// Nulls: proto3 has none. With no nullable representation a NULL is
// written as the field's default and read back as it; WRAPPER writes
// nullable primitives as google.protobuf.*Value and OPTIONAL as proto3
// optional fields, both read back as NULL when absent. Decoders follow
// the writer's schema, so a field with presence (message, wrapper,
// optional, oneof member) absent reads as NULL whatever the options.
//
// Bad bytes give a *DecodeError with the column path and byte offset;
// a column that its schema field cannot hold is an error when the codec is
// compiled.
package protobuf
