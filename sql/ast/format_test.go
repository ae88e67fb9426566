package ast

import (
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestFormatExpr(t *testing.T) {
	col := func(n string) Expr { return &ColumnRef{Name: n} }
	lit := func(v any, typ *types.Type) Expr { return &Literal{Value: v, Type: typ} }
	tests := []struct {
		e    Expr
		want string
	}{
		{lit(nil, types.UnknownType), "null"},
		{lit(true, types.BooleanType), "true"},
		{lit("it's", types.StringType), "'it''s'"},
		{lit(int32(-5), types.IntegerType), "-5"},
		{lit(int64(1)<<40, types.BigintType), "1099511627776"},
		{lit(1000.0, types.DoubleType), "1E3"},
		{lit(1.5e-7, types.DoubleType), "1.5E-7"},
		{lit(apd.New(150, -2), types.DecimalOf(3, 2)), "1.50"},
		{lit(apd.New(5, 0), types.DecimalOf(1, 0)), "DECIMAL '5'"},
		{col("A"), "A"},
		{col("lower"), "`lower`"},
		{col("SELECT"), "`SELECT`"},
		{&ColumnRef{Source: "S", Name: "with.dot"}, "S.`with.dot`"},
		{&Unary{Op: OpNeg, X: &Unary{Op: OpNeg, X: col("X")}}, "- -X"},
		{&Binary{Op: OpConcat, L: col("A"), R: lit("b", types.StringType)}, "(A || 'b')"},
		{&Like{X: col("A"), Pattern: lit("x%", types.StringType), Not: true}, "(NOT (A LIKE 'x%'))"},
		{&In{X: col("A"), List: []Expr{lit(int32(1), types.IntegerType)}}, "(A IN (1))"},
		{&Call{Name: "COUNT", Star: true}, "COUNT(*)"},
		{&Lambda{Params: []string{"X"}, Body: col("X")}, "(X) => X"},
		{&MapCtor{Keys: []Expr{lit("k", types.StringType)}, Values: []Expr{col("V")}}, "MAP('k':=V)"},
		{&StructCtor{Names: []string{"f"}, Values: []Expr{col("V")}}, "STRUCT(`f`:=V)"},
		{&Cast{X: col("A"), To: types.ArrayOf(types.StringType)}, "CAST(A AS ARRAY<STRING>)"},
		{&Subscript{Base: &Dereference{Base: col("S"), Field: "F"}, Index: lit(int32(1), types.IntegerType)}, "S->F[1]"},
	}
	for _, tt := range tests {
		if got := FormatExpr(tt.e); got != tt.want {
			t.Errorf("FormatExpr(%#v) = %q, want %q", tt.e, got, tt.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for ms, want := range map[int64]string{
		0: "0 SECONDS", 1: "1 MILLISECOND", 1500: "1500 MILLISECONDS", 60000: "1 MINUTE",
		7200000: "2 HOURS", 86400000 * 3: "3 DAYS",
	} {
		if got := FormatDuration(ms); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", ms, got, want)
		}
	}
}
