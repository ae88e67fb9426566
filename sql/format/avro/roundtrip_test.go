package avro

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cockroachdb/apd/v3"
	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// roundTripCols covers every SQL type, nested.
var roundTripCols = []string{
	"B BOOLEAN", "I INT", "L BIGINT", "D DOUBLE", "S STRING", "BY BYTES",
	"DEC DECIMAL(9, 3)", "BIGDEC DECIMAL(30, 4)", "DT DATE", "T TIME", "TS TIMESTAMP",
	"A ARRAY<INT>", "AS ARRAY<STRUCT<X STRING, Y ARRAY<BIGINT>>>",
	"M MAP<STRING, DOUBLE>", "MS MAP<STRING, STRUCT<Z BOOLEAN>>",
	"ST STRUCT<F1 INT, F2 STRUCT<G DATE>, F3 MAP<STRING, STRING>>",
}

func columns(t *testing.T, defs []string) []types.Column {
	t.Helper()
	cols := make([]types.Column, len(defs))
	for i, d := range defs {
		var name, typ string
		fmt.Sscanf(d, "%s", &name)
		typ = d[len(name)+1:]
		ty, err := parser.ParseType(typ)
		if err != nil {
			t.Fatal(err)
		}
		cols[i] = types.Column{Name: name, Type: ty}
	}
	return cols
}

// TestRoundTripHamba is the differential test against hamba/avro's
// generic codec, both directions: rows we encode, hamba decodes to the
// same values; rows hamba encodes, we decode to the same values.
func TestRoundTripHamba(t *testing.T) {
	cols := columns(t, roundTripCols)
	text, err := Schema(cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	schema := hamba.MustParse(text)
	enc, err := NewEncoder(text, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(text, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = randValue(rng, c.Type, 0)
		}
		ours, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatalf("row %d: encode: %v", i, err)
		}
		var generic map[string]any
		if err := hamba.Unmarshal(schema, ours, &generic); err != nil {
			t.Fatalf("row %d: hamba cannot read our bytes: %v\n% x", i, err, ours)
		}
		theirs, err := hamba.Marshal(schema, toHambaRow(cols, row))
		if err != nil {
			t.Fatalf("row %d: hamba encode: %v", i, err)
		}
		got := make([]any, len(cols))
		if err := dec.Decode(theirs, got); err != nil {
			t.Fatalf("row %d: decoding hamba's bytes: %v", i, err)
		}
		for j, c := range cols {
			if !sameValue(got[j], row[j]) {
				t.Fatalf("row %d column %s: decoded %#v, want %#v", i, c.Name, got[j], row[j])
			}
			if want := toHamba(c.Type, row[j], Namespace+"."+DefaultName+"_"+c.Name, true); !reflect.DeepEqual(normHamba(generic[c.Name]), normHamba(want)) {
				t.Fatalf("row %d column %s: hamba read %#v, want %#v", i, c.Name, generic[c.Name], want)
			}
		}
	}
}

func randValue(rng *rand.Rand, t *types.Type, depth int) any {
	if rng.IntN(6) == 0 {
		return nil
	}
	switch t.Kind {
	case types.KindBoolean:
		return rng.IntN(2) == 1
	case types.KindInteger:
		return int32(rng.Uint32())
	case types.KindBigint:
		return int64(rng.Uint64()) >> rng.IntN(64)
	case types.KindDouble:
		return rng.NormFloat64() * 1e6
	case types.KindString:
		return fmt.Sprintf("s%d·é", rng.IntN(1000))
	case types.KindBytes:
		b := make([]byte, rng.IntN(5))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	case types.KindDecimal:
		digits := make([]byte, rng.IntN(t.Precision)+1)
		for i := range digits {
			digits[i] = byte('0' + rng.IntN(10))
		}
		n, _ := new(big.Int).SetString(string(digits), 10)
		if rng.IntN(2) == 0 {
			n.Neg(n)
		}
		d := new(apd.Decimal)
		d.Coeff.SetMathBigInt(new(big.Int).Abs(n))
		d.Negative = n.Sign() < 0
		d.Exponent = int32(-t.Scale)
		return d
	case types.KindDate:
		return types.Date(rng.Int32N(40000) - 20000)
	case types.KindTime:
		return types.Time(rng.Int32N(86400000))
	case types.KindTimestamp:
		return types.Timestamp(rng.Int64N(4e12) - 1e12)
	case types.KindArray:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randValue(rng, t.Elem, depth+1)
		}
		return a
	case types.KindMap:
		m := map[string]any{}
		for i := rng.IntN(4); i > 0; i-- {
			m[fmt.Sprintf("k%d", rng.IntN(10))] = randValue(rng, t.Elem, depth+1)
		}
		return m
	case types.KindStruct:
		vals := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			vals[i] = randValue(rng, f.Type, depth+1)
		}
		return &types.StructValue{Type: t, Values: vals}
	}
	panic(t.String())
}

// toHambaRow is row in hamba's generic form for the schema Schema prints.
func toHambaRow(cols []types.Column, row []any) map[string]any {
	m := make(map[string]any, len(cols))
	for i, c := range cols {
		m[c.Name] = toHamba(c.Type, row[i], Namespace+"."+DefaultName+"_"+c.Name, true)
	}
	return m
}

// toHamba converts v as hamba's generic codec reads it: logical types as
// time and big.Rat values, a non-null complex value inside a nullable
// union wrapped as {type name: value}.
func toHamba(t *types.Type, v any, full string, inUnion bool) any {
	if v == nil {
		return nil
	}
	wrap := func(name string, x any) any {
		if inUnion {
			return map[string]any{name: x}
		}
		return x
	}
	switch t.Kind {
	case types.KindInteger:
		return int(v.(int32))
	case types.KindDecimal:
		d := v.(*apd.Decimal)
		r, _ := new(big.Rat).SetString(d.String())
		return r
	case types.KindDate:
		return time.UnixMilli(int64(v.(types.Date)) * 86400000).UTC()
	case types.KindTime:
		return time.Duration(v.(types.Time)) * time.Millisecond
	case types.KindTimestamp:
		return time.UnixMilli(int64(v.(types.Timestamp))).UTC()
	case types.KindArray:
		a := v.([]any)
		out := make([]any, len(a))
		for i, e := range a {
			out[i] = toHamba(t.Elem, e, full, true)
		}
		return wrap("array", out)
	case types.KindMap:
		m := v.(map[string]any)
		out := make([]any, 0, len(m))
		for _, k := range sortedKeys(m) {
			out = append(out, map[string]any{"key": k, "value": toHamba(t.Elem, m[k], full+"_MapValue", true)})
		}
		return wrap("array", out)
	case types.KindStruct:
		sv := v.(*types.StructValue)
		out := make(map[string]any, len(t.Fields))
		for i, f := range t.Fields {
			out[f.Name] = toHamba(f.Type, sv.Values[i], full+"_"+f.Name, true)
		}
		return wrap(full, out)
	}
	return v
}

// normHamba makes hamba's decimals comparable.
func normHamba(v any) any {
	switch v := v.(type) {
	case *big.Rat:
		return v.RatString()
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = normHamba(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normHamba(e)
		}
		return out
	}
	return v
}

// sameValue compares two SQL values, decimals by value.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *apd.Decimal:
		y, ok := b.(*apd.Decimal)
		return ok && x.Cmp(y) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case *types.StructValue:
		y, ok := b.(*types.StructValue)
		return ok && x.Type.Equal(y.Type) && sameValue(x.Values, y.Values)
	}
	return reflect.DeepEqual(a, b)
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(7, 8)) }
