package expr

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/parser"
)

func TestFormatExpr(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a + b * 2", "(A + (B * 2))"},
		{"NOT x > 1", "(NOT (X > 1))"},
		{"-a", "-A"},
		{"s.col = 'it''s'", "(S.COL = 'it''s')"},
		{"`lower` IS NOT NULL", "(`lower` IS NOT NULL)"},
		{"x NOT LIKE 'a%' ESCAPE '!'", "(X NOT LIKE 'a%' ESCAPE '!')"},
		{"x IN (1, 2)", "(X IN (1, 2))"},
		{"x NOT BETWEEN 1 AND 2", "(X NOT BETWEEN 1 AND 2)"},
		{"CASE WHEN a THEN 1 ELSE 2 END", "(CASE WHEN A THEN 1 ELSE 2 END)"},
		{"CASE a WHEN 1 THEN 'x' END", "(CASE A WHEN 1 THEN 'x' END)"},
		{"CAST(a AS DECIMAL(4,2))", "CAST(A AS DECIMAL(4, 2))"},
		{"substring(s, 1, 2)", "SUBSTRING(S, 1, 2)"},
		{"a->b[1]", "A->B[1]"},
		{"ARRAY[1, 2]", "ARRAY[1, 2]"},
		{"MAP('a' := 1)", "MAP('a':=1)"},
		{"STRUCT(x := 1)", "STRUCT(X:=1)"},
		{"TRANSFORM(a, x => x + 1)", "TRANSFORM(A, (X) => (X + 1))"},
		{"1.5", "1.5"},
		{"1e3", "1000.0"},
		{"NULL", "null"},
		{"TRUE", "true"},
	}
	for _, c := range cases {
		e, err := parser.ParseExpr(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if got := FormatExpr(e); got != c.want {
			t.Errorf("FormatExpr(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}
