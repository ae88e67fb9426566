package protobuf

import (
	"bytes"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/sqlstream/sqlstream/sql/types"
)

// The differential tests check the compiled codecs against protobuf-go's
// own dynamicpb messages: a row converted to a dynamic message (by the
// independent conversion below) and marshalled by proto.Marshal must
// decode to a row that converts back to an equal message, and the row our
// encoder writes must unmarshal to that message.

func compileMessage(t testing.TB, schema string, refs Refs, name string) protoreflect.MessageDescriptor {
	t.Helper()
	f, err := compile(schema, refs)
	if err != nil {
		t.Fatal(err)
	}
	md, err := message(f, name)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// toDynamic converts a row to a dynamic message; NULL leaves a field unset.
func toDynamic(t testing.TB, md protoreflect.MessageDescriptor, fields []types.Field, vals []any) *dynamicpb.Message {
	t.Helper()
	m := dynamicpb.NewMessage(md)
	for i, f := range fields {
		fd := fieldFor(md, f.Name)
		if fd == nil {
			t.Fatalf("no field %s in %s", f.Name, md.FullName())
		}
		if vals[i] == nil {
			continue
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for k, v := range vals[i].(map[string]any) {
				mp.Set(protoreflect.ValueOfString(k).MapKey(), toDynValue(t, m, fd.MapValue(), f.Type.Elem, v))
			}
		case fd.IsList() && f.Type.Kind == types.KindMap:
			l := m.Mutable(fd).List()
			mv := vals[i].(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(mv)) { // repeated entries keep their order
				v := mv[k]
				entry := dynamicpb.NewMessage(fd.Message())
				entry.Set(fd.Message().Fields().ByNumber(1), protoreflect.ValueOfString(k))
				entry.Set(fd.Message().Fields().ByNumber(2), toDynValue(t, entry, fd.Message().Fields().ByNumber(2), f.Type.Elem, v))
				l.Append(protoreflect.ValueOfMessage(entry))
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for _, v := range vals[i].([]any) {
				l.Append(toDynValue(t, m, fd, f.Type.Elem, v))
			}
		default:
			m.Set(fd, toDynValue(t, m, fd, f.Type, vals[i]))
		}
	}
	return m
}

func toDynValue(t testing.TB, parent *dynamicpb.Message, fd protoreflect.FieldDescriptor, typ *types.Type, v any) protoreflect.Value {
	t.Helper()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(v.(bool))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(asInt(v)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(asInt(v))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(asInt(v)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(asInt(v)))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(v.(float64)))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(v.(float64))
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(v.(string))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(v.([]byte))
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(fd.Enum().Values().ByName(protoreflect.Name(v.(string))).Number())
	}
	md := fd.Message()
	m := dynamicpb.NewMessage(md)
	set := func(num int, val protoreflect.Value) { m.Set(md.Fields().ByNumber(protoreflect.FieldNumber(num)), val) }
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		ts := time.UnixMilli(int64(v.(types.Timestamp))).UTC()
		set(1, protoreflect.ValueOfInt64(ts.Unix()))
		set(2, protoreflect.ValueOfInt32(int32(ts.Nanosecond())))
	case "google.type.Date":
		d := time.Unix(int64(v.(types.Date))*86400, 0).UTC()
		set(1, protoreflect.ValueOfInt32(int32(d.Year())))
		set(2, protoreflect.ValueOfInt32(int32(d.Month())))
		set(3, protoreflect.ValueOfInt32(int32(d.Day())))
	case "google.type.TimeOfDay":
		d := time.UnixMilli(int64(v.(types.Time))).UTC()
		set(1, protoreflect.ValueOfInt32(int32(d.Hour())))
		set(2, protoreflect.ValueOfInt32(int32(d.Minute())))
		set(3, protoreflect.ValueOfInt32(int32(d.Second())))
		set(4, protoreflect.ValueOfInt32(int32(d.Nanosecond())))
	case "confluent.type.Decimal":
		d := v.(*apd.Decimal)
		if !d.Coeff.IsInt64() {
			t.Fatalf("test decimal %s too large", d)
		}
		unscaled := d.Coeff.Int64()
		if d.Negative {
			unscaled = -unscaled
		}
		set(1, protoreflect.ValueOfBytes(javaBytes(unscaled)))
		set(2, protoreflect.ValueOfUint32(uint32(typ.Precision)))
		set(3, protoreflect.ValueOfInt32(int32(typ.Scale)))
	default:
		if wellKnown(md) == wkWrapper {
			return protoreflect.ValueOfMessage(toDynamic(t, md, []types.Field{{Name: "value", Type: typ}}, []any{v}))
		}
		sv := v.(*types.StructValue)
		return protoreflect.ValueOfMessage(toDynamic(t, md, typ.Fields, sv.Values))
	}
	return protoreflect.ValueOfMessage(m)
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return 0
}

// javaBytes is BigInteger.valueOf(v).toByteArray(), by a byte loop.
func javaBytes(v int64) []byte {
	b := []byte{byte(v)}
	for v>>7 != 0 && v>>7 != -1 {
		v >>= 8
		b = append([]byte{byte(v)}, b...)
	}
	return b
}

// randValue is a random value of t; nulls only where protobuf can hold
// them when nullable.
func randValue(r *rand.Rand, t *types.Type, nullable bool) any {
	if nullable && r.IntN(5) == 0 {
		return nil
	}
	switch t.Kind {
	case types.KindBoolean:
		return r.IntN(2) == 0
	case types.KindInteger:
		return int32(r.Uint32())
	case types.KindBigint:
		return int64(r.Uint64() >> r.IntN(64))
	case types.KindDouble:
		return []float64{0, -1.5, math.Pi, 1e300, r.NormFloat64()}[r.IntN(5)]
	case types.KindString:
		return strings.Repeat("é", r.IntN(3)) + string(rune('a'+r.IntN(26)))
	case types.KindBytes:
		return bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(200))
	case types.KindDecimal:
		return apd.New(r.Int64N(int64(math.Pow10(t.Precision)))-int64(math.Pow10(t.Precision))/2, int32(-t.Scale))
	case types.KindTimestamp:
		return types.Timestamp(r.Int64N(1e13) - 5e12)
	case types.KindDate:
		return types.Date(r.Int32N(100000) - 50000)
	case types.KindTime:
		return types.Time(r.Int32N(86_400_000))
	case types.KindArray:
		n := r.IntN(4)
		out := make([]any, n)
		for i := range out {
			out[i] = randValue(r, t.Elem, false)
		}
		return out
	case types.KindMap:
		out := map[string]any{}
		for i := r.IntN(4); i > 0; i-- {
			out[randValue(r, types.StringType, false).(string)] = randValue(r, t.Elem, false)
		}
		return out
	case types.KindStruct:
		vals := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			vals[i] = randValue(r, f.Type, true)
		}
		return &types.StructValue{Type: t, Values: vals}
	}
	return nil
}

// everyType is one column of each SQL type protobuf can hold.
const everyType = `
B BOOLEAN
I INTEGER
L BIGINT
D DOUBLE
S STRING
BY BYTES
DEC DECIMAL(9, 3)
TS TIMESTAMP
DT DATE
TM TIME
AI ARRAY<BIGINT>
AS ARRAY<STRING>
AST ARRAY<STRUCT<X INTEGER, Y STRING>>
MS MAP<STRING, DOUBLE>
MST MAP<STRING, STRUCT<Z BOOLEAN>>
ST STRUCT<A INTEGER, B STRUCT<C STRING, D DECIMAL(4, 2)>, E ARRAY<INTEGER>>
`

func TestDifferentialRoundTrip(t *testing.T) {
	cols := parseColumns(t, everyType)
	fields := columnFields(cols)
	for _, rep := range []string{NullableDefault, NullableWrapper, NullableOptional} {
		t.Run("nullable="+rep, func(t *testing.T) {
			schema, err := Schema(cols, Options{NullableRepresentation: rep})
			if err != nil {
				t.Fatal(err)
			}
			md := compileMessage(t, schema, nil, "")
			dec, err := NewDecoder(schema, nil, cols, Options{})
			if err != nil {
				t.Fatal(err)
			}
			enc, err := NewEncoder(schema, nil, cols, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, uint64(len(rep))))
			for range 300 {
				checkRow(t, md, fields, dec, enc, randValue(r, types.StructOf(fields...), false).(*types.StructValue).Values)
			}
		})
	}
}

func checkRow(t *testing.T, md protoreflect.MessageDescriptor, fields []types.Field, dec Decoder, enc Encoder, row []any) {
	t.Helper()
	want := toDynamic(t, md, fields, row)
	wire, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, len(fields))
	if err := dec.Decode(wire, got); err != nil {
		t.Fatalf("decode %x: %v", wire, err)
	}
	if back := toDynamic(t, md, fields, got); !proto.Equal(back, want) {
		t.Fatalf("decoded row %v\nconverts to %v\nwant %v", got, back, want)
	}
	ours, err := enc.Encode(nil, row)
	if err != nil {
		t.Fatalf("encode %v: %v", row, err)
	}
	parsed := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(ours, parsed); err != nil {
		t.Fatalf("proto.Unmarshal of our %x: %v", ours, err)
	}
	if !proto.Equal(parsed, want) {
		t.Fatalf("our encoding of %v\nparses as %v\nwant %v", row, parsed, want)
	}
}
