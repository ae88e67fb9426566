package expr

import (
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

func TestConstant(t *testing.T) {
	reg := functions.NewRegistry()
	cases := []struct {
		text, want, typ string
		code            sqlerr.Code
	}{
		{"1 + 2", "3", "INTEGER", ""},
		{"CONCAT('a', 'b')", "'ab'", "STRING", ""},
		{"ARRAY[1, 2.5]", "[1.0, 2.5]", "ARRAY<DECIMAL(11, 1)>", ""},
		{"CAST('2020-01-01' AS DATE)", "DATE 2020-01-01", "DATE", ""},
		{"NULL", "NULL", "UNKNOWN", ""},
		{"ID + 1", "", "", sqlerr.Semantic},
		{"1 / 0", "", "", sqlerr.Semantic},
	}
	for _, c := range cases {
		e, err := parser.ParseExpr(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		v, typ, err := Constant(e, reg)
		if c.code != "" {
			var se *sqlerr.Error
			if !errors.As(err, &se) || se.Code != c.code {
				t.Errorf("Constant(%s): error %v, want code %s", c.text, err, c.code)
			}
			continue
		}
		if err != nil || render(v) != c.want || typ.String() != c.typ {
			t.Errorf("Constant(%s) = %s : %v (%v), want %s : %s", c.text, render(v), typ, err, c.want, c.typ)
		}
	}
}
