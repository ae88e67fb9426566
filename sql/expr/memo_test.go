package expr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// countingRegistry is the built-ins plus test functions that count
// their calls: COUNTED(s) returns s, FAILS(s) fails (its call is NULL
// and logged), TICK(s) returns s but is volatile.
func countingRegistry(t testing.TB) (*functions.Registry, map[string]int) {
	calls := map[string]int{}
	reg := functions.NewRegistry()
	add := func(name string, fn func(s string) (any, error)) {
		reg.MustAddScalar(functions.ScalarDef{Name: name, Category: functions.CatString, Description: "a test function",
			Overloads: []functions.Overload{{Sig: name + "(STRING s) STRING", Fn: func(a []any) (any, error) {
				calls[name]++
				return fn(a[0].(string))
			}}}})
	}
	add("COUNTED", func(s string) (any, error) { return s, nil })
	add("FAILS", func(s string) (any, error) { return nil, errors.New("no " + s) })
	add("TICK", func(s string) (any, error) { return s, nil })
	reg.MarkVolatile("TICK")
	return reg, calls
}

var memoSchema = &types.Schema{Columns: []types.Column{
	{Name: "S", Type: types.StringType}, {Name: "N", Type: types.IntegerType}, {Name: "A", Type: types.ArrayOf(types.StringType)},
}}

// groupResult is what evaluating a group's members in order against one
// row gives: each member's value (or error) and its logged errors.
func groupResult(t *testing.T, cs []*Compiled, eval func(i int, c *Compiled) (any, error), logs [][]string) string {
	var b strings.Builder
	for i, c := range cs {
		v, err := eval(i, c)
		if err != nil {
			fmt.Fprintf(&b, "[%d] error %v", i, err)
		} else {
			fmt.Fprintf(&b, "[%d] %s", i, render(v))
		}
		if len(logs[i]) > 0 {
			fmt.Fprintf(&b, " logged %q", logs[i])
		}
		b.WriteString("; ")
	}
	return b.String()
}

// TestShare evaluates groups of expressions (a WHERE and SELECT items
// over one row) once plainly and once shared through a memo: the values,
// errors and logged function errors must be the same, and the test
// functions must be called as often as the case says.
func TestShare(t *testing.T) {
	cases := []struct {
		name  string
		exprs []string
		row   []any
		// calls are the test functions' calls per row when shared
		calls map[string]int
	}{
		{"repeated call across members", []string{"COUNTED(s) = 'x'", "COUNTED(s)", "LEN(COUNTED(s))"},
			[]any{"x", int32(1), nil}, map[string]int{"COUNTED": 1}},
		{"repeated within one", []string{"CASE WHEN COUNTED(s) = 'a' THEN 1 WHEN COUNTED(s) = 'x' THEN 2 END"},
			[]any{"x", int32(1), nil}, map[string]int{"COUNTED": 1}},
		{"nested repeats", []string{"LEN(COUNTED(s)) + LEN(COUNTED(s))", "LEN(COUNTED(s))"},
			[]any{"abc", int32(1), nil}, map[string]int{"COUNTED": 1}},
		{"unevaluated CASE branch stays unevaluated", []string{"CASE WHEN n > 5 THEN COUNTED(s) END", "CASE WHEN n > 5 THEN COUNTED(s) END"},
			[]any{"x", int32(1), nil}, map[string]int{}},
		{"lazily evaluated where first needed", []string{"n > 5 AND COUNTED(s) = 'x'", "CASE WHEN n < 5 THEN COUNTED(s) END"},
			[]any{"x", int32(1), nil}, map[string]int{"COUNTED": 1}},
		{"OR right side not evaluated", []string{"n = 1 OR COUNTED(s) = 'x'", "n = 1 OR COUNTED(s) = 'x'"},
			[]any{"x", int32(1), nil}, map[string]int{}},
		{"function error logged by every occurrence", []string{"FAILS(s) IS NULL", "FAILS(s)", "COALESCE(FAILS(s), 'd')"},
			[]any{"x", int32(1), nil}, map[string]int{"FAILS": 1}},
		{"error inside a shared parent", []string{"CONCAT(FAILS(s), COUNTED(s))", "CONCAT(FAILS(s), COUNTED(s))"},
			[]any{"x", int32(1), nil}, map[string]int{"FAILS": 1, "COUNTED": 1}},
		{"evaluation error shared", []string{"n / (n - 1)", "n / (n - 1) + 1", "COUNTED(s)"},
			[]any{"x", int32(1), nil}, map[string]int{"COUNTED": 1}},
		{"NULL shared", []string{"COUNTED(s) IS NULL", "COUNTED(s)"},
			[]any{nil, int32(1), nil}, map[string]int{}},
		{"volatile never shared", []string{"TICK(s)", "TICK(s)", "LEN(TICK(s))", "LEN(TICK(s))"},
			[]any{"x", int32(1), nil}, map[string]int{"TICK": 4}},
		{"lambda body not shared, the whole call is", []string{"TRANSFORM(a, x => COUNTED(x))", "TRANSFORM(a, x => COUNTED(x))[1]", "TRANSFORM(a, x => COUNTED(s))"},
			[]any{"s", int32(1), []any{"p", "q"}}, map[string]int{"COUNTED": 4}},
		{"error in a lambda body logged again", []string{"TRANSFORM(a, x => FAILS(x))", "TRANSFORM(a, x => FAILS(x))"},
			[]any{"s", int32(1), []any{"p", "q"}}, map[string]int{"FAILS": 2}},
		{"split parts", []string{"SPLIT(s, '/')[2]", "SPLIT(s, '/')[3]", "SPLIT(COUNTED(s), '/')[-1]", "SPLIT(COUNTED(s), '/')"},
			[]any{"a/b/c/d", int32(1), nil}, map[string]int{"COUNTED": 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg, calls := countingRegistry(t)
			scope := SchemaScope(memoSchema, nil, false)
			logs := make([][]string, len(tc.exprs))
			var cs []*Compiled
			for i, text := range tc.exprs {
				e, err := parser.ParseExpr(text)
				if err != nil {
					t.Fatal(err)
				}
				c, err := Compile(e, scope, reg)
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				cs = append(cs, c.WithErrorLog(func(err error) { logs[i] = append(logs[i], err.Error()) }))
			}
			row := &types.Row{Values: tc.row}
			plain := groupResult(t, cs, func(_ int, c *Compiled) (any, error) { return c.Eval(row) }, logs)
			plainCalls := maps(calls)
			group, slots := Share(cs)
			m := NewMemo(slots)
			for pass := range 3 { // the memo is reused row after row
				clear(calls)
				for i := range logs {
					logs[i] = nil
				}
				m.Reset()
				bound := make([]*Bound, len(group))
				for i, g := range group {
					bound[i] = g.Bind(m)
				}
				shared := groupResult(t, group, func(i int, _ *Compiled) (any, error) { return bound[i].Eval(row) }, logs)
				if shared != plain {
					t.Fatalf("pass %d: shared\n  %s\nplain\n  %s", pass, shared, plain)
				}
				if fmt.Sprint(maps(calls)) != fmt.Sprint(tc.calls) {
					t.Fatalf("pass %d: calls %v, want %v (unshared %v)", pass, maps(calls), tc.calls, plainCalls)
				}
			}
		})
	}
}

func maps(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// TestShareNothingToShare: a group without repeats is returned as is.
func TestShareNothingToShare(t *testing.T) {
	reg, _ := countingRegistry(t)
	scope := SchemaScope(memoSchema, nil, false)
	var cs []*Compiled
	for _, text := range []string{"s", "n + 1", "LEN(s)", "'k'"} {
		e, _ := parser.ParseExpr(text)
		c, err := Compile(e, scope, reg)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	out, slots := Share(cs)
	if slots != 0 || &out[0] != &cs[0] {
		t.Fatalf("slots %d, group copied", slots)
	}
}

// TestShareDifferentColumns: the same text naming different columns (two
// scopes) is not one subexpression.
func TestShareDifferentColumns(t *testing.T) {
	reg, _ := countingRegistry(t)
	a := &types.Schema{Columns: []types.Column{{Name: "S", Type: types.StringType}, {Name: "T", Type: types.StringType}}}
	b := &types.Schema{Columns: []types.Column{{Name: "T", Type: types.StringType}, {Name: "S", Type: types.StringType}}}
	e, _ := parser.ParseExpr("LCASE(s)")
	ca, err := Compile(e, SchemaScope(a, nil, false), reg)
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Compile(e, SchemaScope(b, nil, false), reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, slots := Share([]*Compiled{ca, cb}); slots != 0 {
		t.Fatalf("shared %d subexpressions of different columns", slots)
	}
}

// TestShareFusedSplit: SPLIT calls evaluated only as fused parts make no
// slot (nothing would read it); one evaluated as an array still shares.
func TestShareFusedSplit(t *testing.T) {
	reg, _ := countingRegistry(t)
	scope := SchemaScope(memoSchema, nil, false)
	group := func(texts ...string) int {
		var cs []*Compiled
		for _, text := range texts {
			e, _ := parser.ParseExpr(text)
			c, err := Compile(e, scope, reg)
			if err != nil {
				t.Fatal(err)
			}
			cs = append(cs, c)
		}
		_, slots := Share(cs)
		return slots
	}
	if n := group("SPLIT(s, '/')[4]", "SPLIT(s, '/')[5]", "SPLIT(s, '/')[6]"); n != 0 {
		t.Errorf("fused parts only: %d slots, want 0", n)
	}
	if n := group("SPLIT(s, '/')[4]", "SPLIT(s, '/')", "SPLIT(s, '/')"); n != 1 {
		t.Errorf("two arrays: %d slots, want 1", n)
	}
}
