package avro

import (
	"math/big"

	"github.com/cockroachdb/apd/v3"
	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// primitiveDec compiles a decoder of an Avro primitive (with its logical
// type) into reader type t.
func primitiveDec(w *hamba.PrimitiveSchema, t *types.Type, path string) (decFn, error) {
	logical := hamba.LogicalType("")
	if l := w.Logical(); l != nil {
		logical = l.Type()
	}
	var fn decFn
	switch w.Type() {
	case hamba.Null:
		fn = func(*reader) (any, error) { return nil, nil }
	case hamba.Boolean:
		fn = boolDec(t, path)
	case hamba.Int:
		fn = intDec(logical, t, path)
	case hamba.Long:
		fn = longDec(logical, t, path)
	case hamba.Float:
		fn = floatDec(t, path)
	case hamba.Double:
		fn = doubleDec(t, path)
	case hamba.String, hamba.Bytes:
		fn = bytesDec(w, t, path)
	}
	if fn == nil {
		return nil, mismatch(w, t, path)
	}
	return fn, nil
}

func boolDec(t *types.Type, path string) decFn {
	if t.Kind != types.KindBoolean {
		return nil
	}
	return func(r *reader) (any, error) {
		b, err := r.boolean(path)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
}

// intDec reads an int as INTEGER, BIGINT, DOUBLE, DATE (days) or TIME
// (millis). A DATE or TIME column reads a plain int as its unit too.
func intDec(logical hamba.LogicalType, t *types.Type, path string) decFn {
	conv := intConv(logical, t.Kind)
	if conv == nil {
		return nil
	}
	return func(r *reader) (any, error) {
		v, err := r.int(path)
		if err != nil {
			return nil, err
		}
		return conv(r, v), nil
	}
}

func intConv(logical hamba.LogicalType, k types.Kind) func(*reader, int32) any {
	switch {
	case k == types.KindInteger && logical == "":
		typ := typeWord(int32(0))
		return func(r *reader, v int32) any { return boxInt(r, typ, v) }
	case k == types.KindBigint && logical == "":
		typ := typeWord(int64(0))
		return func(r *reader, v int32) any { return boxInt(r, typ, int64(v)) }
	case k == types.KindDouble && logical == "":
		typ := typeWord(float64(0))
		return func(r *reader, v int32) any { return box(r, typ, float64(v)) }
	case k == types.KindDate && (logical == "" || logical == hamba.Date):
		typ := typeWord(types.Date(0))
		return func(r *reader, v int32) any { return box(r, typ, types.Date(v)) }
	case k == types.KindTime && (logical == "" || logical == hamba.TimeMillis):
		typ := typeWord(types.Time(0))
		return func(r *reader, v int32) any { return box(r, typ, types.Time(v)) }
	}
	return nil
}

// longDec reads a long as BIGINT, DOUBLE, TIMESTAMP (millis, or micros
// and local timestamps by their logical type) or TIME (time-micros).
func longDec(logical hamba.LogicalType, t *types.Type, path string) decFn {
	conv := longConv(logical, t.Kind)
	if conv == nil {
		return nil
	}
	return func(r *reader) (any, error) {
		v, err := r.long(path)
		if err != nil {
			return nil, err
		}
		return conv(r, v), nil
	}
}

func longConv(logical hamba.LogicalType, k types.Kind) func(*reader, int64) any {
	micros := logical == hamba.TimestampMicros || logical == hamba.LocalTimestampMicros
	millis := logical == "" || logical == hamba.TimestampMillis || logical == hamba.LocalTimestampMillis
	ts, tm := typeWord(types.Timestamp(0)), typeWord(types.Time(0))
	switch {
	case k == types.KindBigint:
		typ := typeWord(int64(0))
		return func(r *reader, v int64) any { return boxInt(r, typ, v) }
	case k == types.KindDouble && logical == "":
		typ := typeWord(float64(0))
		return func(r *reader, v int64) any { return box(r, typ, float64(v)) }
	case k == types.KindTimestamp && millis:
		return func(r *reader, v int64) any { return box(r, ts, types.Timestamp(v)) }
	case k == types.KindTimestamp && micros:
		return func(r *reader, v int64) any { return box(r, ts, types.Timestamp(floorDiv(v, 1000))) }
	case k == types.KindTime && logical == hamba.TimeMicros:
		return func(r *reader, v int64) any { return box(r, tm, types.Time(floorDiv(v, 1000))) }
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floatDec(t *types.Type, path string) decFn {
	if t.Kind != types.KindDouble {
		return nil
	}
	typ := typeWord(float64(0))
	return func(r *reader) (any, error) {
		v, err := r.float(path)
		if err != nil {
			return nil, err
		}
		return box(r, typ, float64(v)), nil
	}
}

func doubleDec(t *types.Type, path string) decFn {
	if t.Kind != types.KindDouble {
		return nil
	}
	typ := typeWord(float64(0))
	return func(r *reader) (any, error) {
		v, err := r.double(path)
		if err != nil {
			return nil, err
		}
		return box(r, typ, v), nil
	}
}

// bytesDec reads string or bytes as STRING or BYTES (either way, as
// Avro's promotion allows), and decimal bytes as DECIMAL.
func bytesDec(w *hamba.PrimitiveSchema, t *types.Type, path string) decFn {
	if d, ok := w.Logical().(*hamba.DecimalLogicalSchema); ok {
		if t.Kind != types.KindDecimal {
			return nil
		}
		return decimalDec(d.Scale(), t, path, func(r *reader) ([]byte, error) { return r.bytes(path) })
	}
	switch t.Kind {
	case types.KindString:
		typ := typeWord("")
		return func(r *reader) (any, error) {
			b, err := r.bytes(path)
			if err != nil {
				return nil, err
			}
			return boxString(r, typ, r.str(b)), nil
		}
	case types.KindBytes:
		return func(r *reader) (any, error) {
			b, err := r.bytes(path)
			if err != nil {
				return nil, err
			}
			return append([]byte{}, b...), nil
		}
	}
	return nil
}

func fixedDec(w *hamba.FixedSchema, t *types.Type, path string) (decFn, error) {
	size := w.Size()
	read := func(r *reader) ([]byte, error) { return r.fixed(path, size) }
	if d, ok := w.Logical().(*hamba.DecimalLogicalSchema); ok && t.Kind == types.KindDecimal {
		return decimalDec(d.Scale(), t, path, read), nil
	}
	if t.Kind != types.KindBytes {
		return nil, mismatch(w, t, path)
	}
	return func(r *reader) (any, error) {
		b, err := read(r)
		if err != nil {
			return nil, err
		}
		return append([]byte{}, b...), nil
	}, nil
}

func enumDec(w *hamba.EnumSchema, t *types.Type, path string) (decFn, error) {
	if t.Kind != types.KindString {
		return nil, mismatch(w, t, path)
	}
	symbols := w.Symbols()
	return func(r *reader) (any, error) {
		i, err := r.long(path)
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(symbols)) {
			return nil, r.fail(path, "enum index %d out of range (%d symbols)", i, len(symbols))
		}
		return symbols[i], nil
	}, nil
}

// decimalDec reads a big-endian two's-complement unscaled value of the
// writer's scale, rescaled to the reader's scale when they differ.
func decimalDec(scale int, t *types.Type, path string, read func(*reader) ([]byte, error)) decFn {
	return func(r *reader) (any, error) {
		b, err := read(r)
		if err != nil {
			return nil, err
		}
		d := unscaled(b, scale)
		if scale == t.Scale {
			return d, nil
		}
		out := new(apd.Decimal)
		if _, err := apd.BaseContext.WithPrecision(uint32(max(t.Precision, 1))).Quantize(out, d, int32(-t.Scale)); err != nil {
			return nil, r.fail(path, "decimal %s does not fit DECIMAL(%d, %d): %v", d, t.Precision, t.Scale, err)
		}
		return out, nil
	}
}

// unscaled builds the decimal of two's-complement big-endian b × 10^-scale.
func unscaled(b []byte, scale int) *apd.Decimal {
	if len(b) <= 8 {
		var v int64
		if len(b) > 0 && b[0]&0x80 != 0 {
			v = -1
		}
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return apd.New(v, int32(-scale))
	}
	n := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	d := new(apd.Decimal)
	d.Coeff.SetMathBigInt(n.Abs(n))
	d.Negative = b[0]&0x80 != 0
	d.Exponent = int32(-scale)
	return d
}
