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
//	        ├──NewEncoder(schema, cols) ─► Encoder: []any ─► payload
//	        └──NewTextPrinter(schema, cols) ─► Java TextFormat text of a
//	                          row (REST pull queries with protobuf output)
//
// Schemas compile with protocompile from memory: the schema itself,
// its references (Refs, by import path), google/protobuf/*.proto, and
// small built-in copies of the files Confluent's serializers know without
// references: confluent/meta.proto, confluent/type/decimal.proto and the
// google/type files (builtin.go).
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
// the writer's schema as Confluent's converter reads it: an absent
// message (wrappers included), proto3 optional field or oneof member is
// NULL whatever the options; any other absent field is its default
// (proto2's declared default included); an absent repeated field is an
// empty ARRAY or MAP.
//
// Use from sql/format, per record of a PROTOBUF topic: the Confluent
// header (franz-go sr.ConfluentHeader) gives the schema id and the
// message-index path; the registry gives the schema text and its
// references (Refs: every transitively referenced schema, keyed by the
// import path its reference is named by); MessageByIndexes names the
// message; NewDecoder(text, refs, cols, Options{FullName: name}) is
// compiled once per (id, message) and cached. A sink registers
// Schema(cols, o) and encodes with NewEncoder over the registered text,
// writing MessageIndexes(text, refs, o.FullName) in the header.
// PROTOBUF_NOSR is the same without registry or header: the schema is
// Schema(cols, o) on both sides. Decoders and encoders are safe for
// concurrent use.
//
// Bad bytes give a *DecodeError with the column path and byte offset;
// a column that its schema field cannot hold is an error when the codec is
// compiled.
package protobuf
