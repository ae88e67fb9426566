package expr

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/types"
)

func TestFormatJavaDouble(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"}, {100, "100.0"},
		{1e7, "1.0E7"}, {9999999, "9999999.0"}, {1e10, "1.0E10"}, {1.5e-4, "1.5E-4"}, {0.001, "0.001"},
		{123456789.125, "1.23456789125E8"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"}, {13.219999999999999, "13.219999999999999"}, {1e-300, "1.0E-300"},
	}
	for _, c := range cases {
		if got := functions.FormatJavaDouble(c.in); got != c.want {
			t.Errorf("FormatJavaDouble(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func dec(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestCoerce(t *testing.T) {
	cases := []struct {
		v        any
		from, to *types.Type
		want     string // rendered; "error" for a failure
	}{
		{int32(5), types.IntegerType, types.BigintType, "5"},
		{int64(2147483648), types.BigintType, types.IntegerType, "-2147483648"},
		{int32(5), types.IntegerType, types.DecimalOf(3, 1), "5.0"},
		{int32(50), types.IntegerType, types.DecimalOf(2, 1), "error"},
		{dec("1.25"), types.DecimalOf(3, 2), types.DecimalOf(2, 1), "1.3"},
		{dec("-1.25"), types.DecimalOf(3, 2), types.DecimalOf(2, 1), "-1.3"},
		{dec("9.99"), types.DecimalOf(3, 2), types.DoubleType, "9.99"},
		{dec("-9.99"), types.DecimalOf(3, 2), types.BigintType, "-9"},
		{3.99, types.DoubleType, types.IntegerType, "3"},
		{-3.99, types.DoubleType, types.BigintType, "-3"},
		{1e20, types.DoubleType, types.IntegerType, "2147483647"},
		{math.NaN(), types.DoubleType, types.BigintType, "0"},
		{"12", types.StringType, types.IntegerType, "12"},
		{"1e3", types.StringType, types.DoubleType, "1000.0"},
		{"x", types.StringType, types.DoubleType, "error"},
		{"true", types.StringType, types.BooleanType, "true"},
		{"no", types.StringType, types.BooleanType, "false"},
		{"2020-01-02T03:04:05.006+01:00", types.StringType, types.TimestampType, "TIMESTAMP 2020-01-02T02:04:05.006"},
		{"10:11", types.StringType, types.TimeType, "TIME 10:11:00"},
		{types.Timestamp(-1), types.TimestampType, types.DateType, "DATE 1969-12-31"},
		{types.Timestamp(-1), types.TimestampType, types.TimeType, "TIME 23:59:59.999"},
		{[]any{int32(1), nil}, types.ArrayOf(types.IntegerType), types.ArrayOf(types.StringType), "['1', NULL]"},
		{[]byte{1}, types.BytesType, types.StringType, "error"},
		{nil, types.IntegerType, types.StringType, "NULL"},
	}
	for _, c := range cases {
		got, err := Coerce(c.v, c.from, c.to)
		r := render(got)
		if err != nil {
			r = "error"
		}
		if r != c.want {
			t.Errorf("Coerce(%v, %s, %s) = %s (%v), want %s", c.v, c.from, c.to, r, err, c.want)
		}
	}
}

func TestJavaString(t *testing.T) {
	st := types.StructOf(types.Field{Name: "A", Type: types.IntegerType}, types.Field{Name: "b", Type: types.StringType})
	cases := []struct {
		v    any
		want string
	}{
		{[]any{int32(1), nil, "x"}, "[1, null, x]"},
		{map[string]any{"b": 2.0, "a": int64(1)}, "{a=1, b=2.0}"},
		{&types.StructValue{Type: st, Values: []any{int32(1), nil}}, "Struct{A=1}"},
		{dec("0.00"), "0.00"},
		{types.Date(-1), "1969-12-31"},
		{types.Time(3723004), "01:02:03.004"},
	}
	for _, c := range cases {
		if got := JavaString(c.v); got != c.want {
			t.Errorf("JavaString(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestCoerceLiteral(t *testing.T) {
	cases := []struct {
		v        any
		from, to *types.Type
		want     string
	}{
		{int32(5), types.IntegerType, types.DoubleType, "5.0"},
		{dec("1.5"), types.DecimalOf(2, 1), types.IntegerType, "error"},
		{"10", types.StringType, types.BigintType, "10"},
		{"ten", types.StringType, types.BigintType, "error"},
		{"y", types.StringType, types.BooleanType, "true"},
		{"maybe", types.StringType, types.BooleanType, "error"},
		{int64(7), types.BigintType, types.StringType, "'7'"},
		{"2020-01-01", types.StringType, types.DateType, "DATE 2020-01-01"},
		{[]any{"1", nil}, types.ArrayOf(types.StringType), types.ArrayOf(types.IntegerType), "[1, NULL]"},
		{true, types.BooleanType, types.IntegerType, "error"},
		{"IQ==", types.StringType, types.BytesType, "bytes(21)"},
		{" YeS ", types.StringType, types.BytesType, "bytes(61e4)"},
		{"IQ!=", types.StringType, types.BytesType, "error"},
		{"IQ\n==", types.StringType, types.BytesType, "error"},
		{[]any{"IQ=="}, types.ArrayOf(types.StringType), types.ArrayOf(types.BytesType), "[bytes(21)]"},
	}
	for _, c := range cases {
		got, err := CoerceLiteral(c.v, c.from, c.to)
		r := "error"
		if err == nil {
			r = render(got)
		}
		if r != c.want {
			t.Errorf("CoerceLiteral(%v, %s, %s) = %s (%v), want %s", c.v, c.from, c.to, r, err, c.want)
		}
	}
}

func TestImplicitCast(t *testing.T) {
	c := mustCompile(t, "1", &types.Schema{})
	d, err := ImplicitCast(c, types.DecimalOf(5, 2))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := d.Eval(&types.Row{}); err != nil || render(v) != "1.00" || d.Type().String() != "DECIMAL(5, 2)" {
		t.Errorf("ImplicitCast(1, DECIMAL(5, 2)) = %v : %s (%v)", render(v), d.Type(), err)
	}
	if _, err := ImplicitCast(mustCompile(t, "2.5", &types.Schema{}), types.IntegerType); err == nil {
		t.Errorf("DECIMAL narrowed to INTEGER implicitly")
	}
	if same, _ := ImplicitCast(c, types.IntegerType); same != c {
		t.Errorf("ImplicitCast to the same type did not return c")
	}
}
