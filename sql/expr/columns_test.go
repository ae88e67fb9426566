package expr

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestCompiledColumns pins the columns an expression reads: every column
// reference once, lambda parameters and ROWTIME not among them.
func TestCompiledColumns(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "K", Type: types.StringType, NS: types.KeyNS},
		{Name: "A", Type: types.BigintType},
		{Name: "ARR", Type: types.ArrayOf(types.IntegerType)},
		{Name: "ST", Type: types.StructOf(types.Field{Name: "F", Type: types.StringType})},
		{Name: "B", Type: types.BigintType},
	}}
	cases := []struct{ text, want string }{
		{"A + B * 2", "[1 4]"},
		{"B + A + B", "[1 4]"},
		{"TRANSFORM(ARR, x => x + A)", "[1 2]"},
		{"ST->F", "[3]"},
		{"ROWTIME + 1", "[]"},
		{"CAST(K AS INT)", "[0]"},
		{"1", "[]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(mustCompile(t, c.text, s).Columns()); got != c.want {
			t.Errorf("Columns(%s) = %s, want %s", c.text, got, c.want)
		}
	}
	e, err := parser.ParseExpr("EXPLODE(ARR)")
	if err != nil {
		t.Fatal(err)
	}
	tc, err := CompileTable(e.(*ast.Call), SchemaScope(s, nil, false), functions.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(tc.Columns()); got != "[2]" {
		t.Errorf("Columns(EXPLODE(ARR)) = %s, want [2]", got)
	}
}
