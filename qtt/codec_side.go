package qtt

import (
	"errors"
	"fmt"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// codecSide converts through the format's own codec, for formats whose
// bytes are not text (KAFKA). The test's JSON-ish value is read by the
// JSON codec of the same column into the Go value, which the format codec
// then writes; outputs go the other way.
//
//	test value ─json─► JSON codec ─Go value─► format codec ─► bytes
type codecSide struct {
	asJSON, codec format.Codec
	col           types.Column
}

// newCodecSide builds the side for a single-column format; with no
// column there is nothing to serialize.
func newCodecSide(spec format.Spec, cols []types.Column, key bool) (side, error) {
	if len(cols) == 0 {
		return noneSide{}, nil
	}
	codec, err := newCodec(spec, cols, key)
	if err != nil {
		return nil, err
	}
	unwrap := false
	asJSON, err := newCodec(format.Spec{Name: format.JSON, WrapSingle: &unwrap}, cols, key)
	if err != nil {
		return nil, err
	}
	return codecSide{asJSON: asJSON, codec: codec, col: cols[0]}, nil
}

func newCodec(spec format.Spec, cols []types.Column, key bool) (format.Codec, error) {
	if key {
		return format.NewKeyCodec(spec, cols)
	}
	return format.NewValueCodec(spec, cols)
}

func (s codecSide) encode(v any) ([]byte, error) {
	val, err := s.fromJSON(v)
	if err != nil {
		return nil, err
	}
	return s.codec.Encode(nil, []any{val})
}

// fromJSON reads a JSON-ish test value as a Go value of the column's type.
func (s codecSide) fromJSON(v any) (any, error) {
	text, err := jsonText(v)
	if err != nil {
		return nil, err
	}
	dst := make([]any, 1)
	if err := s.asJSON.Decode(text, dst); err != nil && !errors.Is(err, format.ErrNullRecord) {
		return nil, fmt.Errorf("%s is not a %s: %w", text, s.col.Type, err)
	}
	return dst[0], nil
}

func (s codecSide) decode(b []byte) (any, error) {
	dst := make([]any, 1)
	if err := s.codec.Decode(b, dst); err != nil {
		return nil, err
	}
	return s.toJSON(dst[0])
}

// toJSON renders a Go value as the JSON-ish form tests compare with.
func (s codecSide) toJSON(val any) (any, error) {
	if val == nil {
		return nil, nil
	}
	text, err := s.asJSON.Encode(nil, []any{val})
	if err != nil {
		return nil, err
	}
	return DecodeJSON(text)
}

func (s codecSide) typeOf(any) *types.Type { return s.col.Type }

// normalize sends an expected value through the codec's type so "1" and 1
// compare alike for an INTEGER column; values that do not convert stay as
// given (and will not match).
func (s codecSide) normalize(v any) any {
	val, err := s.fromJSON(v)
	if err != nil {
		return v
	}
	out, err := s.toJSON(val)
	if err != nil {
		return v
	}
	return out
}
