package qtt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// side converts one side (key or value) of a test record between its
// JSON-ish form and record bytes. encode gets a non-nil value and decode
// non-nil bytes: nulls are handled by the caller.
type side interface {
	encode(v any) ([]byte, error)
	decode(b []byte) (any, error)
	// typeOf returns the SQL type to compare a decoded value v with, or
	// nil when unknown.
	typeOf(v any) *types.Type
	// normalize brings an expected value into the form decode returns
	// (DELIMITED text for a number given in the test, for example).
	normalize(expected any) any
}

// textWriter is a side that writes a value's JSON text as given (object
// keys in the test's order) rather than re-encoding the decoded value.
type textWriter interface {
	encodeText(text json.RawMessage) ([]byte, error)
}

var (
	_ textWriter = jsonSide{}
	_ textWriter = rawSide{}
)

// compactText is JSON text without insignificant white space.
func compactText(text json.RawMessage) ([]byte, error) {
	var b bytes.Buffer
	err := json.Compact(&b, text)
	return b.Bytes(), err
}

// newSide picks the converter for a format: JSON is written as the test
// gives it (it may deliberately not match the schema), DELIMITED as the
// text given, KAFKA through the format's codec, NONE (and any key without
// key columns) as nothing.
func newSide(spec format.Spec, cols []types.Column, key bool) (side, error) {
	if key && len(cols) == 0 {
		return noneSide{}, nil
	}
	switch strings.ToUpper(spec.Name) {
	case format.JSON:
		return jsonSide{cols: cols, unwrapped: unwrapped(spec, cols, key)}, nil
	case format.Delimited:
		return textSide{}, nil
	case format.None:
		return noneSide{}, nil
	case format.Kafka:
		return newCodecSide(spec, cols, key)
	case format.Avro, format.Protobuf, format.ProtobufNoSR, format.JSONSR:
		return newRegistrySide(spec, cols, key)
	}
	return nil, fmt.Errorf("format %s is not supported by the test runner", spec.Name)
}

// unwrapped reports whether a single column is written as a bare value.
func unwrapped(spec format.Spec, cols []types.Column, key bool) bool {
	if len(cols) != 1 {
		return false
	}
	return key || spec.WrapSingle != nil && !*spec.WrapSingle
}

// jsonSide writes test values as JSON text and reads JSON back.
type jsonSide struct {
	cols      []types.Column
	unwrapped bool
}

func (s jsonSide) encode(v any) ([]byte, error) { return json.Marshal(v) }

func (jsonSide) encodeText(text json.RawMessage) ([]byte, error) { return compactText(text) }

func (s jsonSide) decode(b []byte) (any, error) {
	v, err := DecodeJSON(b)
	if err != nil {
		return string(b), fmt.Errorf("not JSON: %w", err)
	}
	return v, nil
}

func (s jsonSide) normalize(v any) any { return v }

func (s jsonSide) typeOf(v any) *types.Type {
	if _, isObj := v.(map[string]any); len(s.cols) == 1 && (s.unwrapped || !isObj) {
		return s.cols[0].Type
	}
	return structOf(s.cols)
}

// structOf is the STRUCT type whose fields are the serialized columns.
func structOf(cols []types.Column) *types.Type {
	fields := make([]types.Field, 0, len(cols))
	for _, c := range cols {
		if c.NS != types.HeaderNS {
			fields = append(fields, types.Field{Name: c.Name, Type: c.Type})
		}
	}
	return types.StructOf(fields...)
}

// textSide passes DELIMITED text through: strings as given, anything else
// as its JSON text.
type textSide struct{}

func (textSide) encode(v any) ([]byte, error) {
	if s, ok := v.(string); ok {
		return []byte(s), nil
	}
	return json.Marshal(v)
}

func (textSide) decode(b []byte) (any, error) { return string(b), nil }
func (textSide) typeOf(any) *types.Type       { return nil }

func (textSide) normalize(v any) any {
	if _, ok := v.(string); ok {
		return v
	}
	return renderJSON(v)
}

// noneSide is the NONE format: no bytes at all.
type noneSide struct{}

func (noneSide) encode(any) ([]byte, error) { return nil, nil }
func (noneSide) decode([]byte) (any, error) { return nil, nil }
func (noneSide) typeOf(any) *types.Type     { return nil }
func (noneSide) normalize(v any) any        { return v }

// rawSide serves topics no source references: JSON text both ways, and
// undecodable bytes as a string.
type rawSide struct{}

func (rawSide) encode(v any) ([]byte, error) { return json.Marshal(v) }

func (rawSide) encodeText(text json.RawMessage) ([]byte, error) { return compactText(text) }

func (rawSide) decode(b []byte) (any, error) {
	if v, err := DecodeJSON(b); err == nil {
		return v, nil
	}
	return string(b), nil
}

func (rawSide) typeOf(any) *types.Type { return nil }
func (rawSide) normalize(v any) any    { return v }

// jsonText marshals a JSON-ish value (json.Number keeps its text).
func jsonText(v any) ([]byte, error) { return json.Marshal(v) }
