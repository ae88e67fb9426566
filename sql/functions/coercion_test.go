package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestCommonType(t *testing.T) {
	st := func(fs ...types.Field) *types.Type { return types.StructOf(fs...) }
	cases := []struct {
		a, b *types.Type
		want string // "" when there is none
	}{
		{types.IntegerType, types.BigintType, "BIGINT"},
		{types.IntegerType, types.DoubleType, "DOUBLE"},
		{types.BigintType, types.DecimalOf(4, 2), "DECIMAL(21, 2)"},
		{types.DecimalOf(4, 2), types.DecimalOf(5, 4), "DECIMAL(6, 4)"},
		{types.DecimalOf(4, 2), types.DoubleType, "DOUBLE"},
		{types.UnknownType, types.StringType, "STRING"},
		{types.StringType, types.IntegerType, ""},
		{types.ArrayOf(types.IntegerType), types.ArrayOf(types.BigintType), "ARRAY<BIGINT>"},
		{types.MapOf(types.StringType, types.UnknownType), types.MapOf(types.StringType, types.DoubleType), "MAP<STRING, DOUBLE>"},
		{st(types.Field{Name: "A", Type: types.IntegerType}), st(types.Field{Name: "A", Type: types.BigintType}), "STRUCT<`A` BIGINT>"},
		{st(types.Field{Name: "A", Type: types.IntegerType}), st(types.Field{Name: "B", Type: types.IntegerType}), ""},
		{types.TimestampType, types.DateType, ""},
	}
	for _, c := range cases {
		got, ok := CommonType(c.a, c.b)
		s := ""
		if ok && got != nil {
			s = got.String()
		}
		if s != c.want {
			t.Errorf("CommonType(%s, %s) = %q, want %q", c.a, c.b, s, c.want)
		}
	}
}

func TestCanImplicitlyCast(t *testing.T) {
	cases := []struct {
		from, to *types.Type
		ok       bool
	}{
		{types.IntegerType, types.BigintType, true},
		{types.IntegerType, types.DecimalOf(10, 0), true},
		{types.BigintType, types.DoubleType, true},
		{types.DecimalOf(4, 2), types.DoubleType, true},
		{types.DoubleType, types.DecimalOf(10, 2), false},
		{types.BigintType, types.IntegerType, false},
		{types.StringType, types.TimestampType, false},
		{types.UnknownType, types.ArrayOf(types.StringType), true},
		{types.ArrayOf(types.IntegerType), types.ArrayOf(types.DoubleType), true},
		{types.ArrayOf(types.DoubleType), types.ArrayOf(types.IntegerType), false},
		{types.IntegerType, types.IntegerType, true},
	}
	for _, c := range cases {
		if _, ok := CanImplicitlyCast(c.from, c.to); ok != c.ok {
			t.Errorf("CanImplicitlyCast(%s, %s) = %v, want %v", c.from, c.to, ok, c.ok)
		}
	}
}
