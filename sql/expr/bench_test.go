package expr

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

func compileBench(b *testing.B, text string, s *types.Schema) *Compiled {
	e, err := parser.ParseExpr(text)
	if err != nil {
		b.Fatal(err)
	}
	c, err := Compile(e, SchemaScope(s, nil, false), functions.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// BenchmarkFilter evaluates a typical WHERE clause; it must not allocate.
func BenchmarkFilter(b *testing.B) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "PAGE", Type: types.StringType}, {Name: "MS", Type: types.BigintType},
	}}
	c := compileBench(b, "page LIKE '/product/%' AND ms * 2 > 10", s)
	row := &types.Row{Values: []any{"/product/42", int64(300)}}
	b.ReportAllocs()
	for b.Loop() {
		ok, err := c.EvalBool(row)
		if !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkProject evaluates a projection with a function call and
// string concatenation.
func BenchmarkProject(b *testing.B) {
	s := &types.Schema{Columns: []types.Column{{Name: "NAME", Type: types.StringType}}}
	c := compileBench(b, "UCASE(name) || '-' || SUBSTRING(name, 2, 3)", s)
	row := &types.Row{Values: []any{"sqlstream"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Eval(row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDoubleVsDecimalLiteral compares a DOUBLE column with a DECIMAL
// literal (WHERE price > 0.1); the literal is converted once.
func BenchmarkDoubleVsDecimalLiteral(b *testing.B) {
	s := &types.Schema{Columns: []types.Column{{Name: "PRICE", Type: types.DoubleType}}}
	c := compileBench(b, "price > 0.1", s)
	row := &types.Row{Values: []any{2.5}}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := c.EvalBool(row); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkIntVsDecimalLiteral compares an INTEGER column with a DECIMAL
// literal (exact decimal comparison).
func BenchmarkIntVsDecimalLiteral(b *testing.B) {
	s := &types.Schema{Columns: []types.Column{{Name: "ID", Type: types.IntegerType}}}
	c := compileBench(b, "id > 0.5", s)
	row := &types.Row{Values: []any{int32(3)}}
	b.ReportAllocs()
	for b.Loop() {
		if ok, err := c.EvalBool(row); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
