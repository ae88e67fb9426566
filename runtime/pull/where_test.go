package pull

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestPullWhere is the golden test of the pull-query WHERE rules.
//
//	where keys=(NAME:TYPE, …) [windowed] [table-scan=false] [range-scan=false]
//	<one WHERE expression a line, or "-" for no WHERE>
//	----
//	<the expression: ok, or the error's code and message>
func TestPullWhere(t *testing.T) {
	datadriven.RunTest(t, "testdata/where", func(t *testing.T, d *datadriven.TestData) string {
		w := Where{Windowed: d.HasArg("windowed"), Scan: props.PullScan{Table: true, KeyRange: true}}
		for _, arg := range d.CmdArgs {
			switch arg.Key {
			case "keys":
				w.Keys = parseKeyColumns(t, arg.Vals)
			case "table-scan":
				w.Scan.Table = arg.Vals[0] == "true"
			case "range-scan":
				w.Scan.KeyRange = arg.Vals[0] == "true"
			}
		}
		var out strings.Builder
		for _, line := range nonEmptyLines(d.Input) {
			fmt.Fprintf(&out, "%s: %s\n", line, pullWhereResult(t, w, line))
		}
		return out.String()
	})
}

func pullWhereResult(t *testing.T, w Where, where string) string {
	var cond ast.Expr
	if where != "-" {
		var err error
		if cond, err = parser.ParseExpr(where); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
	}
	err := w.Check(cond, ast.Pos{Line: 1, Col: 1})
	var se *sqlerr.Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &se):
		return fmt.Sprintf("%s %s", se.Code, se.Msg)
	}
	t.Fatalf("%s: not a *sqlerr.Error: %v", where, err)
	return ""
}

func parseKeyColumns(t *testing.T, specs []string) []types.Column {
	var keys []types.Column
	for _, spec := range specs {
		name, typ, _ := strings.Cut(spec, ":")
		ty, err := parser.ParseType(typ)
		if err != nil {
			t.Fatalf("key %s: %v", spec, err)
		}
		keys = append(keys, types.Column{Name: name, Type: ty, NS: types.KeyNS})
	}
	return keys
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
