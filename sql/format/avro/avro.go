package avro

import (
	"fmt"
	"sort"

	hamba "github.com/hamba/avro/v2"
)

// Options are the WITH-clause settings that shape a schema.
type Options struct {
	// FullName is KEY_SCHEMA_FULL_NAME / VALUE_SCHEMA_FULL_NAME; "" is
	// ksqlDB's default, io.confluent.ksql.avro_schemas.KsqlDataSourceSchema
	// (for a key record ksqlDB names it KeySchemaName(source); the caller
	// passes that here).
	FullName string
	// Unwrapped says a single column is written bare: a single key
	// column, or WRAP_SINGLE_VALUE=false.
	Unwrapped bool
	// Key is the key side: an unwrapped column is ROWKEY, not ROWVAL.
	Key bool
	// OriginalNames keeps the schema's field names as written when
	// inferring columns (a schema given by KEY_/VALUE_SCHEMA_ID); false
	// upper-cases them, as ksqlDB does for a subject's latest schema.
	OriginalNames bool
	// Read marks the columns a Decoder decodes (nil: all): the others it
	// reads past with the checks a decode makes (check.go) and leaves
	// NULL. Decoders only.
	Read []bool
}

// Refs maps a referenced schema's name (the named type's full name, or
// the reference's subject) to its schema text.
type Refs map[string]string

// Decoder reads one Avro payload (no Confluent header) into a row.
type Decoder interface {
	// Decode fills dst (one slot per reader column) with the values of
	// sql/types/value.go. It never keeps payload.
	Decode(payload []byte, dst []any) error
	// DecodeScratch is Decode putting the record's strings and boxed
	// values in s, which one goroutine at a time uses (Scratch).
	DecodeScratch(s *Scratch, payload []byte, dst []any) error
}

// Encoder writes one row as an Avro payload (no Confluent header).
type Encoder interface {
	// Encode appends the encoding of vals (one per column) to buf.
	Encode(buf []byte, vals []any) ([]byte, error)
}

// Namespace and Name are ksqlDB's default record name for a source's
// schema (KsqlConstants.AVRO_SCHEMA_NAMESPACE and AVRO_SCHEMA_NAME).
const (
	Namespace   = "io.confluent.ksql.avro_schemas"
	DefaultName = "KsqlDataSourceSchema"
)

// fullName is the record name o asks for.
func (o Options) fullName() string {
	if o.FullName != "" {
		return o.FullName
	}
	return Namespace + "." + DefaultName
}

// single is the name of the one column of an unwrapped schema.
func (o Options) single() string {
	if o.Key {
		return "ROWKEY"
	}
	return "ROWVAL"
}

// parse parses schema text, with refs parsed first into the same cache
// so that the schema may name their types. Each parse has its own cache:
// hamba's default cache is package state shared by every caller.
func parse(schema string, refs Refs) (hamba.Schema, error) {
	cache := &hamba.SchemaCache{}
	if err := parseRefs(refs, cache); err != nil {
		return nil, err
	}
	s, err := hamba.ParseWithCache(schema, "", cache)
	if err != nil {
		return nil, fmt.Errorf("invalid Avro schema: %w", err)
	}
	return s, nil
}

// parseRefs parses every reference into cache. References may name each
// other, so it retries the ones that failed until a round makes no
// progress; then the first failure is the error.
func parseRefs(refs Refs, cache *hamba.SchemaCache) error {
	pending := make([]string, 0, len(refs))
	for name := range refs {
		pending = append(pending, name)
	}
	sort.Strings(pending)
	for len(pending) > 0 {
		var failed []string
		var firstErr error
		for _, name := range pending {
			if _, err := hamba.ParseWithCache(refs[name], "", cache); err != nil {
				failed = append(failed, name)
				if firstErr == nil {
					firstErr = fmt.Errorf("invalid Avro schema reference %q: %w", name, err)
				}
			}
		}
		if len(failed) == len(pending) {
			return firstErr
		}
		pending = failed
	}
	return nil
}

// rootRecord is the record a wrapped schema's columns are the fields of:
// the schema itself, or the one record of a nullable root union
// (["null", record], as some producers register), which nullable says.
func rootRecord(s hamba.Schema) (rec *hamba.RecordSchema, nullable, ok bool) {
	if u, isUnion := s.(*hamba.UnionSchema); isUnion {
		b := nonNull(u)
		if len(b) != 1 {
			return nil, false, false
		}
		rec, ok = deref(b[0]).(*hamba.RecordSchema)
		return rec, true, ok
	}
	rec, ok = deref(s).(*hamba.RecordSchema)
	return rec, false, ok
}
