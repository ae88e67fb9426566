package protobuf

import (
	"math"
	"math/big"
	"time"

	"github.com/cockroachdb/apd/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/types"
)

func signbit(f float64) bool { return math.Signbit(f) }

// appendValue appends one value (no tag): a scalar, or a length-delimited
// message.
func (fe *fieldEnc) appendValue(buf []byte, v any) ([]byte, error) {
	if fe.kind == protoreflect.MessageKind {
		return fe.withLength(buf, func(b []byte) ([]byte, error) { return fe.appendMessage(b, v) })
	}
	switch fe.kind {
	case protoreflect.BoolKind:
		b, ok := v.(bool)
		if !ok {
			return buf, fe.errf("want BOOLEAN, got %T", v)
		}
		return protowire.AppendVarint(buf, protowire.EncodeBool(b)), nil
	case protoreflect.StringKind:
		s, ok := v.(string)
		if !ok {
			return buf, fe.errf("want STRING, got %T", v)
		}
		return protowire.AppendString(buf, s), nil
	case protoreflect.BytesKind:
		b, ok := v.([]byte)
		if !ok {
			return buf, fe.errf("want BYTES, got %T", v)
		}
		return protowire.AppendBytes(buf, b), nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return fe.appendFloat(buf, v)
	case protoreflect.EnumKind:
		return fe.appendEnum(buf, v)
	}
	i, ok := toInt(v)
	if !ok {
		return buf, fe.errf("want an integer, got %T", v)
	}
	return fe.appendInt(buf, i)
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

func (fe *fieldEnc) appendInt(buf []byte, i int64) ([]byte, error) {
	switch fe.kind {
	case protoreflect.Int32Kind:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return buf, fe.errf("value %d does not fit int32", i)
		}
		return protowire.AppendVarint(buf, uint64(i)), nil
	case protoreflect.Sint32Kind:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return buf, fe.errf("value %d does not fit sint32", i)
		}
		return protowire.AppendVarint(buf, protowire.EncodeZigZag(i)), nil
	case protoreflect.Sint64Kind:
		return protowire.AppendVarint(buf, protowire.EncodeZigZag(i)), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if i < 0 || i > math.MaxUint32 {
			return buf, fe.errf("value %d does not fit %s", i, fe.kind)
		}
		if fe.kind == protoreflect.Fixed32Kind {
			return protowire.AppendFixed32(buf, uint32(i)), nil
		}
		return protowire.AppendVarint(buf, uint64(i)), nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if i < 0 {
			return buf, fe.errf("value %d does not fit %s", i, fe.kind)
		}
		if fe.kind == protoreflect.Fixed64Kind {
			return protowire.AppendFixed64(buf, uint64(i)), nil
		}
		return protowire.AppendVarint(buf, uint64(i)), nil
	case protoreflect.Sfixed32Kind:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return buf, fe.errf("value %d does not fit sfixed32", i)
		}
		return protowire.AppendFixed32(buf, uint32(int32(i))), nil
	case protoreflect.Sfixed64Kind:
		return protowire.AppendFixed64(buf, uint64(i)), nil
	}
	return protowire.AppendVarint(buf, uint64(i)), nil // int64
}

func (fe *fieldEnc) appendFloat(buf []byte, v any) ([]byte, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	default:
		return buf, fe.errf("want DOUBLE, got %T", v)
	}
	if fe.kind == protoreflect.FloatKind {
		return protowire.AppendFixed32(buf, math.Float32bits(float32(f))), nil
	}
	return protowire.AppendFixed64(buf, math.Float64bits(f)), nil
}

func (fe *fieldEnc) appendEnum(buf []byte, v any) ([]byte, error) {
	if s, ok := v.(string); ok {
		ev := fe.enum.Values().ByName(protoreflect.Name(s))
		if ev == nil {
			return buf, fe.errf("%q is not a value of enum %s", s, fe.enum.FullName())
		}
		return protowire.AppendVarint(buf, uint64(int64(ev.Number()))), nil
	}
	i, ok := toInt(v)
	if !ok || i < math.MinInt32 || i > math.MaxInt32 {
		return buf, fe.errf("want an enum name or number, got %v", v)
	}
	return protowire.AppendVarint(buf, uint64(i)), nil
}

// appendMessage appends the body of a message value.
func (fe *fieldEnc) appendMessage(buf []byte, v any) ([]byte, error) {
	switch fe.wk {
	case wkTimestamp:
		ts, ok := v.(types.Timestamp)
		if !ok {
			return buf, fe.errf("want TIMESTAMP, got %T", v)
		}
		ms := int64(ts)
		return appendVarintFields(buf, floorDiv(ms, 1000), floorMod(ms, 1000)*1e6), nil
	case wkDate:
		d, ok := v.(types.Date)
		if !ok {
			return buf, fe.errf("want DATE, got %T", v)
		}
		t := time.Unix(int64(d)*86400, 0).UTC()
		return appendVarintFields(buf, int64(t.Year()), int64(t.Month()), int64(t.Day())), nil
	case wkTime:
		t, ok := v.(types.Time)
		if !ok {
			return buf, fe.errf("want TIME, got %T", v)
		}
		ms := int64(t)
		return appendVarintFields(buf, ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000*1e6), nil
	case wkDecimal:
		return fe.appendDecimal(buf, v)
	case wkWrapper:
		return fe.sub.encode(buf, []any{v})
	}
	sv, ok := v.(*types.StructValue)
	if !ok || len(sv.Values) != fe.sub.n {
		return buf, fe.errf("want a STRUCT of %d fields, got %T", fe.sub.n, v)
	}
	return fe.sub.encode(buf, sv.Values)
}

// appendVarintFields writes fields 1, 2, … as varints, leaving out zeros.
func appendVarintFields(buf []byte, vals ...int64) []byte {
	for i, v := range vals {
		if v != 0 {
			buf = protowire.AppendTag(buf, protowire.Number(i+1), protowire.VarintType)
			buf = protowire.AppendVarint(buf, uint64(v))
		}
	}
	return buf
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// appendDecimal writes confluent.type.Decimal at the column's scale: the
// unscaled value as minimal two's-complement big-endian bytes (Java's
// BigInteger.toByteArray), the precision and the scale.
func (fe *fieldEnc) appendDecimal(buf []byte, v any) ([]byte, error) {
	d, ok := v.(*apd.Decimal)
	if !ok || d == nil {
		return buf, fe.errf("want DECIMAL, got %T", v)
	}
	d, err := rescale(d, fe.target)
	if err != nil {
		return buf, fe.errf("%v", err)
	}
	bi := d.Coeff.MathBigInt()
	if d.Negative {
		bi.Neg(bi)
	}
	buf = protowire.AppendTag(buf, 1, protowire.BytesType)
	buf = protowire.AppendBytes(buf, twosComplement(bi))
	if fe.target.Precision != 0 {
		buf = protowire.AppendTag(buf, 2, protowire.VarintType)
		buf = protowire.AppendVarint(buf, uint64(fe.target.Precision))
	}
	if fe.target.Scale != 0 {
		buf = protowire.AppendTag(buf, 3, protowire.VarintType)
		buf = protowire.AppendVarint(buf, uint64(int64(fe.target.Scale)))
	}
	return buf, nil
}

// twosComplement is Java's BigInteger.toByteArray: the shortest
// big-endian two's-complement form (at least one byte).
func twosComplement(bi *big.Int) []byte {
	if bi.Sign() >= 0 {
		b := bi.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := (bi.BitLen()+7)/8 + 1
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	b := new(big.Int).Add(bi, mod).Bytes()
	for len(b) < n {
		b = append([]byte{0xff}, b...)
	}
	for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}
