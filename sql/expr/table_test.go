package expr

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

func TestCompileTable(t *testing.T) {
	s := &types.Schema{Columns: []types.Column{
		{Name: "ARR", Type: types.ArrayOf(types.BigintType)},
		{Name: "A", Type: types.IntegerType}, {Name: "B", Type: types.IntegerType},
		{Name: "M", Type: types.MapOf(types.StringType, types.IntegerType)},
	}}
	row := &types.Row{Values: []any{[]any{int64(1), int64(2)}, int32(1), nil, map[string]any{}}}
	cases := []struct{ text, want string }{
		{"EXPLODE(ARR)", "BIGINT [1 2]"},
		{"CUBE_EXPLODE(ARRAY[A, B])", "ARRAY<INTEGER> [[<nil> <nil>] [1 <nil>]]"},
		{"EXPLODE(CAST(NULL AS ARRAY<INT>))", "INTEGER []"},
		{"EXPLODE(M)", "TYPE"},
		{"UCASE('x')", "SEMANTIC"},
		{"NOPE(ARR)", "UNKNOWN"},
	}
	reg := functions.NewRegistry()
	for _, c := range cases {
		e, err := parser.ParseExpr(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		ct, err := CompileTable(e.(*ast.Call), SchemaScope(s, nil, false), reg)
		var got string
		if se, ok := err.(*sqlerr.Error); ok {
			got = string(se.Code)
		} else if err != nil {
			got = err.Error()
		} else {
			out, err := ct.Eval(row)
			got = fmt.Sprintf("%s %v", ct.Type(), out)
			if err != nil {
				got += " " + err.Error()
			}
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.text, got, c.want)
		}
	}
}
