package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
)

func TestSplitNumbered(t *testing.T) {
	for in, want := range map[string]string{
		"KSQL_COL_12": "KSQL_COL 12", "F": "F 0", "F_1_2": "F_1 2", "A_": "A_ 0", "_3": " 3", "COL_X": "COL_X 0",
	} {
		base, n := splitNumbered(in)
		if got := fmt.Sprintf("%s %d", base, n); got != want {
			t.Errorf("splitNumbered(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestNamerSequence names a run of unaliased expressions over a source
// with KSQL_COL_1 and a column F_1 taken: KSQL_COL numbers skip 1, F
// fields skip F_1 but may use F (no column F), G fields start at G.
func TestNamerSequence(t *testing.T) {
	src := &types.Schema{Columns: []types.Column{{Name: "KSQL_COL_1"}, {Name: "F_1"}}}
	n := newNamer(src)
	call := &ast.Call{Name: "ABS"}
	field := func(f string) ast.Expr { return &ast.Dereference{Base: &ast.ColumnRef{Name: "S"}, Field: f} }
	var got []string
	for _, e := range []ast.Expr{call, field("F"), call, field("F"), field("F_7"), field("G"), call} {
		got = append(got, n.derived(e))
	}
	want := "KSQL_COL_0 F KSQL_COL_2 F_2 F_3 G KSQL_COL_3"
	if strings.Join(got, " ") != want {
		t.Errorf("names %v, want %s", got, want)
	}
}
