package parser

import (
	"errors"
	"strings"
	"testing"

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
		{"operators", "SELECT 1" + strings.Repeat(" + 1", 100_000) + " FROM s;", "1"},
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
