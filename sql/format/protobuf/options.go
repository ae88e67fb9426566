package protobuf

import "strings"

// Options are the WITH-clause settings that shape a schema.
type Options struct {
	// FullName is KEY_SCHEMA_FULL_NAME / VALUE_SCHEMA_FULL_NAME: the
	// message to use in a registered schema ("" = the first message), and
	// the name of the top-level message Schema prints ("" =
	// ConnectDefault1).
	FullName string
	// Unwrapped asks for a single column written bare. PROTOBUF cannot
	// unwrap: a value-side request is an error (as in ksqlDB); on the key
	// side the single key column stays a one-field message, which is what
	// ksqlDB writes.
	Unwrapped bool
	// Key marks the key side.
	Key bool
	// NullableRepresentation is KEY_/VALUE_PROTOBUF_NULLABLE_REPRESENTATION:
	// "" (proto3 defaults: a null is written as the field's default),
	// "WRAPPER" (google.protobuf.*Value wrappers) or "OPTIONAL" (proto3
	// optional fields). Only Schema reads it; decoders and encoders follow
	// the schema they are given.
	NullableRepresentation string
	// KeepCase keeps the field names of a registered schema as they are in
	// Columns (KEY_/VALUE_SCHEMA_ID given); otherwise they are upper-cased
	// as ksqlDB does for schemas it infers from the latest subject version.
	KeepCase bool
	// Read marks the columns a Decoder decodes (nil: all): the others it
	// reads past with the checks a decode makes and leaves NULL (see
	// slot.check). Decoders only.
	Read []bool
}

// The nullable representations.
const (
	NullableDefault  = ""
	NullableWrapper  = "WRAPPER"
	NullableOptional = "OPTIONAL"
)

// Refs maps the import path of a referenced schema to its schema text.
type Refs map[string]string

func (o Options) validate() error {
	switch strings.ToUpper(o.NullableRepresentation) {
	case NullableDefault, NullableWrapper, NullableOptional:
	default:
		return schemaErr("unknown PROTOBUF_NULLABLE_REPRESENTATION %q: use WRAPPER or OPTIONAL", o.NullableRepresentation)
	}
	if o.Unwrapped && !o.Key {
		return unsupported("Format 'PROTOBUF' does not support 'WRAP_SINGLE_VALUE' set to 'false'.")
	}
	return nil
}

func (o Options) representation() string { return strings.ToUpper(o.NullableRepresentation) }
