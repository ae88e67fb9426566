package format

import (
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format/avro"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Codec serializes the values of a fixed list of columns (the key columns
// or the value columns of a source) to and from record bytes.
//
// Decode fills dst (len(dst) == number of columns) with one Go value per
// column, NULL as nil; it never keeps a reference to data. A nil record
// (tombstone, or a missing key) is never passed to Decode: the caller
// handles it. Decode returns ErrNullRecord when the bytes themselves spell
// a null record (JSON "null" for a wrapped value), which callers treat like
// a nil record. Other failures are *DecodeError.
//
// Encode appends the serialized form of vals to buf and returns it. A nil
// result means a null record: a codec with no columns (keyless, NONE), or a
// single unwrapped NULL in JSON or KAFKA. Any other result is non-nil,
// even when empty (an empty KAFKA STRING, a DELIMITED record of NULLs).
// Encode fails only when a value's Go type does not match its column type
// or a DECIMAL does not fit its column.
type Codec interface {
	Decode(data []byte, dst []any) error
	Encode(buf []byte, vals []any) ([]byte, error)
}

// NewKeyCodec returns the codec for the key columns cols. A single key
// column is always written unwrapped (the bare value); several key columns
// are a JSON object or several DELIMITED fields. It validates the format
// against the columns and fails with the messages ksqlDB uses.
func NewKeyCodec(spec Spec, cols []types.Column) (Codec, error) {
	spec.WrapSingle = nil // keys are never wrapped; WRAP_SINGLE_VALUE is for values
	if err := spec.validate(); err != nil {
		return nil, err
	}
	for _, c := range cols {
		if hasMap(c.Type) {
			return nil, mapKeyError(c)
		}
	}
	if err := checkColumns(spec, cols, true); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return noneCodec{}, nil
	}
	return newCodec(spec, cols, len(cols) == 1, true)
}

// NewValueCodec returns the codec for the value columns cols.
// WRAP_SINGLE_VALUE applies to a single column only; KAFKA takes exactly
// one column; DELIMITED and KAFKA support no compound types. Header
// columns (types.HeaderNS) may be among cols: the codec skips them (see
// headerColumns), and the rules above count only the other columns.
func NewValueCodec(spec Spec, cols []types.Column) (Codec, error) {
	serialized, pos := serializedColumns(cols)
	c, err := newValueCodec(spec, serialized)
	if err != nil || len(serialized) == len(cols) {
		return c, err
	}
	return &headerColumns{inner: c, pos: pos}, nil
}

// NewValueDecoder is NewValueCodec for a source that reads only some of
// its value columns: read[i] says whether cols[i] is read (nil: all are).
// Decode leaves an unread column NULL, but still reads past its value
// with the checks and errors of a full decode (malformed data, a value
// of the wrong type for its column: ksqlDB rejects the record), without
// materializing it — where the format can (JSON, JSON_SR, AVRO,
// PROTOBUF, PROTOBUF_NOSR); the others decode every column.
func NewValueDecoder(spec Spec, cols []types.Column, read []bool) (Codec, error) {
	c, err := NewValueCodec(spec, cols)
	if err != nil || !slices.Contains(read, false) {
		return c, err
	}
	if p, ok := c.(columnPruner); ok {
		return p.pruned(read), nil
	}
	return c, nil
}

// NewTaskValueDecoder is NewValueDecoder for a decoder one task owns: it
// is used by one goroutine at a time and never shared between tasks. A
// JSON value's strings are then copied into a slab and boxed from an
// arena the decoder keeps from record to record (as NewTaskKeyCodec's
// keys), not into a copy of the record's whole text and an arena per
// record: two allocations a record fewer; its BIGINT, TIMESTAMP and
// DOUBLE values are boxed in that arena too (one allocation each, else). AVRO, PROTOBUF and
// PROTOBUF_NOSR values' strings and boxes go into the avro or protobuf
// package's Scratch the same way. Other formats get NewValueDecoder's
// decoder.
func NewTaskValueDecoder(spec Spec, cols []types.Column, read []bool) (Codec, error) {
	c, err := NewValueDecoder(spec, cols, read)
	if err != nil {
		return c, err
	}
	switch t := c.(type) {
	case *jsonCodec:
		j := *t
		j.task, j.memo = newKeyArena(), new(memberMemo)
		return &j, nil
	case *srCodec: // NewValueDecoder's own, shared with no one
		switch spec.Name {
		case Avro:
			t.avroScratch = new(avro.Scratch)
		case Protobuf:
			t.protoScratch = new(protobuf.Scratch)
		}
	case *protobufNoSRCodec:
		p := *t
		p.scratch = new(protobuf.Scratch)
		return &p, nil
	}
	return c, nil
}

// columnPruner is a value codec that can decode only some of its columns
// (NewValueDecoder); read has one entry per column.
type columnPruner interface {
	pruned(read []bool) Codec
}

func newValueCodec(spec Spec, cols []types.Column) (Codec, error) {
	if err := spec.validate(); err != nil {
		return nil, err
	}
	if spec.WrapSingle != nil && len(cols) != 1 && spec.Name != None {
		return nil, sqlerr.New(sqlerr.Semantic, ast.Pos{},
			"'WRAP_SINGLE_VALUE' is only valid for single-field value schemas")
	}
	if err := checkColumns(spec, cols, false); err != nil {
		return nil, err
	}
	if spec.Name == None || spec.Name == Kafka && len(cols) == 0 {
		return noneCodec{}, nil
	}
	return newCodec(spec, cols, len(cols) == 1 && spec.unwrapped(), false)
}

func newCodec(spec Spec, cols []types.Column, unwrapped, key bool) (Codec, error) {
	switch spec.Name {
	case JSON:
		return newJSONCodec(cols, unwrapped), nil
	case JSONSR, Avro, Protobuf:
		p, _ := payloadOf(spec.Name)
		return newSRCodec(spec, cols, p, unwrapped, key)
	case ProtobufNoSR:
		c, err := newProtobufNoSRCodec(spec, cols, unwrapped, key)
		if err != nil {
			return nil, sqlerr.New(sqlerr.Unsupported, ast.Pos{}, "%v", err)
		}
		return c, nil
	case Delimited:
		return newDelimitedCodec(cols, spec.delimiter()), nil
	case Kafka:
		return newKafkaCodec(cols[0]), nil
	}
	return noneCodec{}, nil
}

// checkColumns validates the columns against what the format supports.
func checkColumns(spec Spec, cols []types.Column, key bool) error {
	switch {
	case spec.Name == None && len(cols) > 0:
		return sqlerr.New(sqlerr.Semantic, ast.Pos{},
			"The 'NONE' format can only be used when no columns are defined. Got: %s", columnList(cols))
	case spec.Name == Kafka && len(cols) > 1:
		return sqlerr.New(sqlerr.Semantic, ast.Pos{},
			"The 'KAFKA' format only supports a single field. Got: %s", columnList(cols))
	}
	for _, c := range cols {
		if reason := unsupported(spec.Name, c.Type); reason != "" {
			return schemaError(spec, cols, key, reason+", column: `"+c.Name+"`")
		}
	}
	return nil
}

// unsupported returns why format cannot carry t, or "".
func unsupported(format string, t *types.Type) string {
	switch format {
	case Kafka:
		switch t.Kind {
		case types.KindInteger, types.KindBigint, types.KindDouble, types.KindString,
			types.KindBytes, types.KindTimestamp, types.KindDate, types.KindTime:
			return ""
		}
		return "The 'KAFKA' format does not support type '" + t.Kind.String() + "'"
	case Delimited:
		switch t.Kind {
		case types.KindArray, types.KindMap, types.KindStruct:
			return "The 'DELIMITED' format does not support type '" + t.Kind.String() + "'"
		}
	case JSON, JSONSR:
		return jsonUnsupported(t)
	}
	return ""
}

func jsonUnsupported(t *types.Type) string {
	switch t.Kind {
	case types.KindMap:
		if t.Key != nil && t.Key.Kind != types.KindString {
			return "JSON only supports MAP types with STRING keys"
		}
		return jsonUnsupported(t.Elem)
	case types.KindArray:
		return jsonUnsupported(t.Elem)
	case types.KindStruct:
		for _, f := range t.Fields {
			if r := jsonUnsupported(f.Type); r != "" {
				return r
			}
		}
	}
	return ""
}

func schemaError(spec Spec, cols []types.Column, key bool, reason string) error {
	side, features := "Value", "[]"
	if key {
		side = "Key"
	} else if len(cols) == 1 && spec.unwrapped() {
		features = "[UNWRAP_SINGLES]"
	}
	list := columnList(cols)
	return sqlerr.New(sqlerr.Unsupported, ast.Pos{},
		"%s format does not support schema.\nformat: %s\nschema: Persistence{columns=%s, features=%s}\nreason: %s",
		side, spec.Name, list, features, reason)
}

// columnList renders columns as ksqlDB does in messages:
// [`K` STRING KEY, `V` INTEGER].
func columnList(cols []types.Column) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("`" + c.Name + "` " + c.Type.String())
		if c.NS == types.KeyNS {
			b.WriteString(" KEY")
		}
	}
	b.WriteByte(']')
	return b.String()
}

func hasMap(t *types.Type) bool {
	switch t.Kind {
	case types.KindMap:
		return true
	case types.KindArray:
		return hasMap(t.Elem)
	case types.KindStruct:
		for _, f := range t.Fields {
			if hasMap(f.Type) {
				return true
			}
		}
	}
	return false
}

func mapKeyError(c types.Column) error {
	return sqlerr.New(sqlerr.Unsupported, ast.Pos{},
		"Map keys, including types that contain maps, are not supported as they may lead to "+
			"unexpected behavior due to inconsistent serialization. Key column name: `%s`. "+
			"Column type: %s. See https://github.com/confluentinc/ksql/issues/6621 for more.",
		c.Name, c.Type.String())
}

// noneCodec serializes no columns: NONE, keyless sources.
type noneCodec struct{}

var _ Codec = noneCodec{}

// Decode ignores data.
func (noneCodec) Decode(data []byte, dst []any) error { return nil }

// Encode returns nil: no key (or no value).
func (noneCodec) Encode(buf []byte, vals []any) ([]byte, error) { return nil, nil }
