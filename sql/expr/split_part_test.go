package expr

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// splitPartCases are SPLIT inputs for the fused SPLIT(s, d)[i].
var splitPartCases = []struct {
	s, d any
	i    any
}{
	{"a/b/c", "/", int32(1)}, {"a/b/c", "/", int32(3)}, {"a/b/c", "/", int32(4)}, {"a/b/c", "/", int32(0)},
	{"a/b/c", "/", int32(-1)}, {"a/b/c", "/", int32(-3)}, {"a/b/c", "/", int32(-4)}, {"a/b/c", "/", int64(2)},
	{"/a//b/", "/", int32(1)}, {"/a//b/", "/", int32(3)}, {"/a//b/", "/", int32(5)}, {"/a//b/", "/", int32(-1)},
	{"", "/", int32(1)}, {"", "/", int32(-1)}, {"", "/", int32(2)}, {"", "", int32(1)}, {"", "", int32(2)},
	{"héllo", "", int32(2)}, {"héllo", "", int32(-4)}, {"héllo", "", int32(6)}, {"a\xffb", "", int32(2)},
	{"a\xffb", "", int32(-2)}, {"abcabc", "bc", int32(2)}, {"abcabc", "bc", int32(3)}, {"aaa", "aa", int32(2)},
	{"a/b", "/", nil}, {nil, "/", int32(1)}, {"a/b", nil, int32(1)}, {"x", "x", int32(2)}, {"x", "x", int32(-2)},
	{"https://www.nexmark.com/a/b/c/item.htm?query=1", "/", int32(4)},
	{"https://www.nexmark.com/a/b/c/item.htm?query=1", "/", int32(7)},
	{"https://www.nexmark.com/a/b/c/item.htm?query=1", "/", int32(8)},
}

// TestSplitPart compares the fused SPLIT(s, d)[i] with the array path
// (SPLIT's value subscripted by a node the fusion does not see).
func TestSplitPart(t *testing.T) {
	for _, tc := range splitPartCases {
		fused, plain := splitBoth(t, tc.s, tc.d, tc.i)
		if fused != plain {
			t.Errorf("SPLIT(%q, %q)[%v]: fused %s, array %s", tc.s, tc.d, tc.i, fused, plain)
		}
	}
}

// FuzzSplitPart compares the fused SPLIT(s, d)[i] with the array path.
func FuzzSplitPart(f *testing.F) {
	for _, tc := range splitPartCases {
		if s, ok := tc.s.(string); ok {
			if d, ok := tc.d.(string); ok {
				if i, ok := tc.i.(int32); ok {
					f.Add(s, d, i)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, s, d string, i int32) {
		fused, plain := splitBoth(t, s, d, i)
		if fused != plain {
			t.Fatalf("SPLIT(%q, %q)[%d]: fused %s, array %s", s, d, i, fused, plain)
		}
	})
}

// splitBoth evaluates SPLIT(S, D)[I] fused and through the array (the
// subscript of a CASE, which is not a call node) over one row.
func splitBoth(t testing.TB, s, d, i any) (fused, plain string) {
	schema := &types.Schema{Columns: []types.Column{
		{Name: "S", Type: types.StringType}, {Name: "D", Type: types.StringType}, {Name: "I", Type: types.IntegerType},
	}}
	if x, ok := i.(int64); ok {
		schema.Columns[2].Type = types.BigintType
		i = x
	}
	reg := functions.NewRegistry()
	row := &types.Row{Values: []any{s, d, i}}
	eval := func(text string) string {
		e, err := parser.ParseExpr(text)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compile(e, SchemaScope(schema, nil, false), reg)
		if err != nil {
			t.Fatal(err)
		}
		v, err := c.Eval(row)
		return fmt.Sprintf("%s %v", render(v), err)
	}
	return eval("SPLIT(s, d)[i]"), eval("(CASE WHEN TRUE THEN SPLIT(s, d) END)[i]")
}
