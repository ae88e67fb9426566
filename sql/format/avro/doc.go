// Package avro is ksqlDB's AVRO format without the Confluent wire header:
// the schemas ksqlDB registers, the columns it infers from a registered
// schema, and row codecs compiled once per schema.
//
//	columns ──Schema──▶ Avro schema text (registered by sql/format)
//	schema text ──Columns──▶ columns (CREATE without columns)
//	writer schema + reader columns ──NewDecoder──▶ Decoder: payload → []any
//	schema + columns ──NewEncoder──▶ Encoder: []any → payload
//
// The payload is Avro binary only: sql/format strips and writes the magic
// byte and schema id, caches one Decoder per schema id, and talks to the
// registry. This package imports only sql/types and libraries (the lint
// allows sql/sqlerr and sql/ast too), never sql/format. Decoders and
// encoders hold no mutable state: one serves any number of goroutines.
//
// hamba/avro parses schemas (each parse with its own cache: hamba's
// default cache is package state). The data path is our own: NewDecoder
// compiles a (writer, reader) pair into a flat program of closures, one
// step per writer field, that read zig-zag varints, length-prefixed
// strings and bytes and union branch indexes straight into the row's
// slots as sql/types/value.go defines them, skipping writer fields no
// column wants, with Avro's promotions and logical types; no generic
// maps, no reflection. A payload that does not match its schema is a
// *DecodeError naming the column path and the byte offset; a compile
// error names the column and both types. Decoded values are boxed in
// per-record arenas (box.go, over sql/format/internal/boxes, which the
// JSON decoder shares): a Nexmark Bid decodes in 4 allocations.
//
// Deviations from ksqlDB, on purpose: a payload with bytes left after
// its value is an error (Java's reader ignores them, which hides a
// payload written with another schema than its id names); a map encodes
// its entries in key order, so equal maps are equal bytes (keys of
// compacted topics compare as bytes).
//
// Known gap: hamba validates field defaults when it parses, so a
// registered schema with a default of the wrong type (which a registry
// with avro.validate.defaults=false accepts) is an "invalid Avro schema"
// error here.
//
// Files: avro.go (API, parsing), schema.go (Schema, KeySchemaName),
// columns.go (Columns), decode.go/primitive.go/skip.go (the decoder),
// encode.go (the encoder), reader.go (binary primitives), box.go (the
// arenas of decoded values).
package avro
