package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// TestParse runs the golden files:
//
//	parse: SQL → canonical SQL and AST dump per statement (and checks the
//	       canonical SQL parses back to the same dump, positions aside)
//	error: SQL → code and rendered error
//	expr:  ParseExpr → canonical SQL and dump
//	type:  ParseType → type
func TestParse(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if strings.Contains(path, "testdata/fuzz/") || strings.Contains(path, "testdata/grammar/") || strings.HasSuffix(path, "testdata/sqlbase") {
			return // FuzzParse's seed corpus; TestGrammar's table; TestGrammarChecklist's list
		}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "parse":
				return runParse(t, d.Input)
			case "error":
				return runError(d.Input)
			case "expr":
				return runExpr(t, d.Input)
			case "type":
				typ, err := ParseType(d.Input)
				if err != nil {
					return renderErr(err)
				}
				return typ.String()
			}
			t.Fatalf("unknown command %s", d.Cmd)
			return ""
		})
	})
}

func runParse(t *testing.T, input string) string {
	stmts, err := Parse(input)
	if err != nil {
		return renderErr(err)
	}
	var b strings.Builder
	for _, s := range stmts {
		canon := ast.FormatStatement(s)
		fmt.Fprintf(&b, "text: %s\ncanonical: %s\n%s", s.Text(), canon, dump(s))
		checkRoundTrip(t, s, canon)
	}
	return b.String()
}

// checkRoundTrip parses the canonical text again and compares the trees
// without positions.
func checkRoundTrip(t *testing.T, s ast.Statement, canon string) {
	t.Helper()
	again, err := Parse(canon)
	if err != nil {
		t.Errorf("canonical text %q does not parse: %v", canon, err)
		return
	}
	if len(again) != 1 {
		t.Errorf("canonical text %q gave %d statements", canon, len(again))
		return
	}
	if got, want := withoutPositions(dump(again[0])), withoutPositions(dump(s)); got != want {
		t.Errorf("round trip of %q changed the tree:\n%s\nwant:\n%s", canon, got, want)
	}
}

// withoutPositions drops the @line:col markers of a dump.
func withoutPositions(s string) string {
	var b strings.Builder
	for _, f := range strings.Split(s, "@") {
		if b.Len() > 0 {
			f = f[strings.IndexAny(f+" \n", " \n"):]
		}
		b.WriteString(f)
	}
	return b.String()
}

func runError(input string) string {
	_, err := Parse(input)
	if err == nil {
		return "no error"
	}
	return renderErr(err)
}

func runExpr(t *testing.T, input string) string {
	e, err := ParseExpr(input)
	if err != nil {
		return renderErr(err)
	}
	canon := ast.FormatExpr(e)
	again, err := ParseExpr(canon)
	if err != nil {
		t.Errorf("canonical %q does not parse: %v", canon, err)
	} else if got := ast.FormatExpr(again); got != canon {
		t.Errorf("round trip of %q gave %q", canon, got)
	}
	d := &dumper{}
	d.expr(e)
	return "canonical: " + canon + "\n" + d.b.String()
}

func renderErr(err error) string {
	var se *sqlerr.Error
	if !errors.As(err, &se) {
		return "non-sql error: " + err.Error()
	}
	return fmt.Sprintf("code: %s\n%s", se.Code, se.Render())
}

// TestQuotedIdentifierNUL: a NUL inside a quoted identifier is a syntax
// error at the NUL's own line and column; inside a string it is data.
func TestQuotedIdentifierNUL(t *testing.T) {
	for _, sql := range []string{"SELECT `a\x00b` FROM s;", "SELECT \"a\x00b\" FROM s;", "CREATE STREAM `s\x00` (a INT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON');"} {
		_, err := Parse(sql)
		var se *sqlerr.Error
		col := strings.IndexByte(sql, 0) + 1
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "cannot contain a NUL") || se.Pos.Line != 1 || se.Pos.Col != col {
			t.Errorf("%q: %v, want an error at 1:%d", sql, err, col)
		}
	}
	if _, err := Parse("SELECT 'a\x00b' FROM s;"); err != nil {
		t.Errorf("NUL in a string: %v", err)
	}
}
