package qtt

import (
	"errors"
	"fmt"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// registrySide converts the schema-registry formats (AVRO, PROTOBUF,
// PROTOBUF_NOSR, JSON_SR) through the engine's own codec of the source,
// whose spec carries the engine's registry: inputs are written with the
// schema the engine registered for the source (or its KEY_/VALUE_SCHEMA_ID),
// outputs are read by the schema id in each record's header.
//
//	test value ─JSON codec─► Go values ─format codec─► bytes (and back)
type registrySide struct {
	asJSON, codec format.Codec
	cols          []types.Column
	unwrapped     bool
}

func newRegistrySide(spec format.Spec, cols []types.Column, key bool) (side, error) {
	if len(cols) == 0 {
		return noneSide{}, nil
	}
	codec, err := newCodec(spec, cols, key)
	if err != nil {
		return nil, err
	}
	unwrapped := unwrapped(spec, cols, key)
	if spec.Name == format.Protobuf || spec.Name == format.ProtobufNoSR {
		unwrapped = false // a protobuf key is a one-field message, as tests write it
	}
	jsonSpec := format.Spec{Name: format.JSON}
	if len(cols) == 1 {
		wrap := !unwrapped
		jsonSpec.WrapSingle = &wrap
	}
	asJSON, err := format.NewValueCodec(jsonSpec, cols)
	if err != nil {
		return nil, err
	}
	return registrySide{asJSON: asJSON, codec: codec, cols: cols, unwrapped: unwrapped}, nil
}

func (s registrySide) encode(v any) ([]byte, error) {
	vals, err := s.fromJSON(v)
	if err != nil {
		return nil, err
	}
	return s.codec.Encode(nil, vals)
}

func (s registrySide) fromJSON(v any) ([]any, error) {
	text, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(s.cols))
	if err := s.asJSON.Decode(text, vals); err != nil && !errors.Is(err, format.ErrNullRecord) {
		return nil, fmt.Errorf("%s does not fit %v: %w", text, structOf(s.cols), err)
	}
	return vals, nil
}

func (s registrySide) decode(b []byte) (any, error) {
	vals := make([]any, len(s.cols))
	if err := s.codec.Decode(b, vals); err != nil {
		return nil, err
	}
	return s.toJSON(vals)
}

func (s registrySide) toJSON(vals []any) (any, error) {
	if s.unwrapped && vals[0] == nil {
		return nil, nil
	}
	text, err := s.asJSON.Encode(nil, vals)
	if err != nil {
		return nil, err
	}
	return DecodeJSON(text)
}

func (s registrySide) typeOf(any) *types.Type {
	if s.unwrapped {
		return s.cols[0].Type
	}
	return structOf(s.cols)
}

// normalize sends an expected value through the columns' types.
func (s registrySide) normalize(v any) any {
	vals, err := s.fromJSON(v)
	if err != nil {
		return v
	}
	out, err := s.toJSON(vals)
	if err != nil {
		return v
	}
	return out
}
