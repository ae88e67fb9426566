package runtime

import (
	"context"
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
	datadriven.RunTest(t, "testdata/pull_where", func(t *testing.T, d *datadriven.TestData) string {
		w := pullWhere{windowed: d.HasArg("windowed"), scan: props.PullScan{Table: true, KeyRange: true}}
		for _, arg := range d.CmdArgs {
			switch arg.Key {
			case "keys":
				w.keys = parseKeyColumns(t, arg.Vals)
			case "table-scan":
				w.scan.Table = arg.Vals[0] == "true"
			case "range-scan":
				w.scan.KeyRange = arg.Vals[0] == "true"
			}
		}
		var out strings.Builder
		for _, line := range nonEmptyLines(d.Input) {
			fmt.Fprintf(&out, "%s: %s\n", line, pullWhereResult(t, w, line))
		}
		return out.String()
	})
}

func pullWhereResult(t *testing.T, w pullWhere, where string) string {
	var cond ast.Expr
	if where != "-" {
		var err error
		if cond, err = parser.ParseExpr(where); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
	}
	err := w.check(cond, ast.Pos{Line: 1, Col: 1})
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

// TestPullLimitClauseDisabled: ksql.query.pull.limit.clause.enabled=false
// refuses LIMIT in pull queries only, with ksqlDB's message.
func TestPullLimitClauseDisabled(t *testing.T) {
	te, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer te.Close()
	mustRun(t, te, `CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	off := map[string]any{props.PullLimit: false}
	for _, c := range []struct {
		sql   string
		props map[string]any
		fails bool
	}{
		{"SELECT * FROM s LIMIT 2;", nil, false},
		{"SELECT * FROM s LIMIT 2;", off, true},
		{"SELECT * FROM s;", off, false},
		{"SELECT * FROM s EMIT CHANGES LIMIT 2;", off, false},
	} {
		rs, err := te.Query(context.Background(), c.sql, c.props, nil)
		if err == nil {
			rs.Close()
		}
		switch {
		case c.fails && (err == nil || !strings.Contains(err.Error(), "LIMIT clause in pull queries is currently disabled")):
			t.Errorf("%s %v: %v, want the LIMIT-disabled error", c.sql, c.props, err)
		case !c.fails && err != nil:
			t.Errorf("%s %v: %v", c.sql, c.props, err)
		}
	}
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
