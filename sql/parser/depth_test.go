package parser

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// TestDepthLimit: input nested past sqlerr.MaxDepth is a syntax error at
// the first construct past the limit, whichever walk meets it first, and
// input at the limit parses.
func TestDepthLimit(t *testing.T) {
	deep := sqlerr.MaxDepth + 1
	for _, tc := range []struct {
		name, sql string
		near      string
	}{
		{"parentheses", "SELECT " + strings.Repeat("(", 500_000) + "1" + strings.Repeat(")", 500_000) + " FROM s;", "("},
		{"unbalanced", "SELECT " + strings.Repeat("(", 500_000) + " FROM s;", "("},
		{"subscripts", "SELECT a" + strings.Repeat("[", deep) + "1" + strings.Repeat("]", deep) + " FROM s;", "["},
		{"calls", "SELECT " + strings.Repeat("ABS(", deep) + "1" + strings.Repeat(")", deep) + " FROM s;", "("},
		{"chained subscripts", "SELECT 1" + strings.Repeat("[1]", 200_000) + " FROM s;", "1"},
		{"chained derefs", "SELECT a" + strings.Repeat("->b", deep) + " FROM s;", "->"},
		{"not", "SELECT * FROM s WHERE " + strings.Repeat("NOT ", 100_000) + "a;", "NOT"},
		{"case", "SELECT " + strings.Repeat("CASE WHEN a THEN 1 ELSE ", deep) + "2" + strings.Repeat(" END", deep) + " FROM s;", "a"},
		{"types", "CREATE STREAM s (a " + strings.Repeat("ARRAY<", 200_000) + "INT" + strings.Repeat(">", 200_000) + ") WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON');", "ARRAY"},
		{"in create", "CREATE STREAM t AS SELECT " + strings.Repeat("(", 500_000) + "1" + strings.Repeat(")", 500_000) + " FROM s;", "("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.sql)
			var se *sqlerr.Error
			if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested too deeply: more than 500 levels") {
				t.Fatalf("got %v", err)
			}
			if se.Near != tc.near || se.Pos.Line != 1 || se.Pos.Col <= 1 {
				t.Errorf("error at %v near %q, want near %q", se.Pos, se.Near, tc.near)
			}
		})
	}
}

// TestDepthAtLimit: nesting of exactly sqlerr.MaxDepth-2 levels (the
// statement's own walks use the rest) still parses and formats.
func TestDepthAtLimit(t *testing.T) {
	d := sqlerr.MaxDepth - 2
	for _, sql := range []string{
		"SELECT " + strings.Repeat("(", d) + "1" + strings.Repeat(")", d) + " FROM s;",
		"SELECT " + strings.Repeat("ABS(", d) + "1" + strings.Repeat(")", d) + " FROM s;",
		"CREATE STREAM s (a " + strings.Repeat("ARRAY<", d) + "INT" + strings.Repeat(">", d) + ") WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON');",
	} {
		if _, err := Parse(sql); err != nil {
			t.Errorf("%.40s…: %v", sql, err)
		}
	}
}

// TestCustomTypeDepth: a custom type counts with its whole depth where it
// is used, so types built from custom types stay within the limit.
func TestCustomTypeDepth(t *testing.T) {
	half := sqlerr.MaxDepth / 2
	deep := "CREATE TYPE T1 AS " + strings.Repeat("ARRAY<", half) + "INT" + strings.Repeat(">", half) + ";"
	if _, err := Parse(deep + "CREATE TYPE T2 AS " + strings.Repeat("ARRAY<", half-2) + "T1" + strings.Repeat(">", half-2) + ";"); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
	_, err := Parse(deep + "CREATE TYPE T2 AS " + strings.Repeat("ARRAY<", half+1) + "T1" + strings.Repeat(">", half+1) + ";")
	var se *sqlerr.Error
	if !errors.As(err, &se) || se.Near != "T1" || !strings.Contains(se.Msg, "nested too deeply") {
		t.Fatalf("past the limit: %v", err)
	}
}

// TestChainedPostfixPosition: a chain of postfix operators counts one
// level per operator and is refused at the first one past the limit;
// one of sqlerr.MaxDepth-2 parses.
func TestChainedPostfixPosition(t *testing.T) {
	at := "SELECT 1" + strings.Repeat("[1]", sqlerr.MaxDepth-2) + " FROM s;"
	if _, err := Parse(at); err != nil {
		t.Fatalf("%d subscripts: %v", sqlerr.MaxDepth-2, err)
	}
	_, err := Parse("SELECT 1" + strings.Repeat("[1]", 20_000) + " FROM s;")
	var se *sqlerr.Error
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested too deeply") {
		t.Fatalf("20000 subscripts: %v", err)
	}
	// The select item is one level, each subscript one more, and the
	// index inside the (MaxDepth-1)-th is one past the limit: "SELECT 1"
	// is 8 columns, each "[1]" 3, its index the middle one.
	if want := len("SELECT 1") + 2 + 3*(sqlerr.MaxDepth-2); se.Pos.Col != want || se.Near != "1" {
		t.Errorf("error at column %d, want %d", se.Pos.Col, want)
	}
}

// TestFlatChains: a left-associative chain counts as one level of
// nesting however long, up to sqlerr.MaxChain operators, and formats to
// text that parses again; past MaxChain it is refused at the operator.
func TestFlatChains(t *testing.T) {
	for _, sql := range []string{
		"SELECT 1" + strings.Repeat(" + 1", sqlerr.MaxDepth+1) + " FROM s;",
		"SELECT * FROM s WHERE a" + strings.Repeat(" AND a", sqlerr.MaxDepth+1) + ";",
		"SELECT " + strings.Repeat("(", 400) + "1" + strings.Repeat(" * 2", 2000) + strings.Repeat(")", 400) + " FROM s;",
		"SELECT 1" + strings.Repeat(" - 1", sqlerr.MaxChain) + " FROM s;",
		"SELECT * FROM s WHERE a = 0" + strings.Repeat(" OR a = 1", sqlerr.MaxChain-1) + ";",
	} {
		stmts, err := Parse(sql)
		if err != nil {
			t.Fatalf("%.40s…: %v", sql, err)
		}
		if _, err := Parse(ast.FormatStatement(stmts[0])); err != nil {
			t.Errorf("%.40s… formats to text that does not parse: %v", sql, err)
		}
	}
	for _, tc := range []struct{ sql, msg string }{
		{"SELECT 1" + strings.Repeat(" + 1", sqlerr.MaxChain+1) + " FROM s;", "chain too long: more than 10000 operands"},
		{"SELECT 1" + strings.Repeat(" + 1", 1_000_000) + " FROM s;", "more than 80000 operators at one level of nesting"},
	} {
		_, err := Parse(tc.sql)
		var se *sqlerr.Error
		if !errors.As(err, &se) || !strings.Contains(se.Msg, tc.msg) || se.Near == "" {
			t.Errorf("%d bytes: %v, want %q", len(tc.sql), err, tc.msg)
		}
	}
}

// TestParseContext: a done context stops the parse with an error that
// wraps the context's, whatever pass is running.
func TestParseContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sql := range []string{
		"SELECT 1" + strings.Repeat("[1]", 200_000) + " FROM s;",
		"SELECT 1" + strings.Repeat(" + 1", 5_000) + " FROM s;",
		strings.Repeat("SELECT 1 FROM s;", 1_000),
	} {
		if _, err := Parse(sql, WithContext(ctx)); !errors.Is(err, context.Canceled) {
			t.Errorf("%.30s…: got %v, want context.Canceled", sql, err)
		}
	}
	if _, err := Parse("SELECT 1 FROM s;", WithContext(context.Background())); err != nil {
		t.Fatal(err)
	}
}
