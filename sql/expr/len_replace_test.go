package expr

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// lenReplaceCases are REPLACE inputs for the fused LEN(REPLACE(s, o, r)):
// ASCII, multi-byte and astral runes (two UTF-16 units), matches that
// overlap, an empty s, o and r, o longer than s, invalid UTF-8 whose
// runes decode otherwise once split and joined, and NULLs.
var lenReplaceCases = []struct{ s, o, r any }{
	{"extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq", "c", ""}, {"cccc", "c", ""}, {"abc", "c", "cc"},
	{"aaa", "aa", "b"}, {"aaaa", "aa", ""}, {"", "c", "x"}, {"abc", "", "-"}, {"héllo", "", "ü"}, {"", "", "x"},
	{"ab", "abc", "z"}, {"héllo wörld", "ö", "o"}, {"😀a😀", "😀", "b"}, {"a😀", "a", "😀😀"}, {"x", "x", ""},
	{"\xe2\x82x\xac", "x", ""}, {"a\xffb", "\xff", "c"}, {"abc", "b", "\xe2\x82"}, {"\xe2\x82", "\x82", "\xac"},
	{nil, "c", ""}, {"abc", nil, ""}, {"abc", "c", nil},
}

// TestLenOfReplace compares the fused LEN(REPLACE(s, o, r)) with LEN of
// the string REPLACE builds (its value through a node the fusion does
// not see), values and reported errors, under the default result cap
// and one that the replaced strings of some cases pass.
func TestLenOfReplace(t *testing.T) {
	for _, max := range []int{0, 6} {
		for _, tc := range lenReplaceCases {
			fused, plain := lenReplaceBoth(t, max, tc.s, tc.o, tc.r)
			if fused != plain {
				t.Errorf("cap %d: LEN(REPLACE(%q, %q, %q)): fused %s, built %s", max, tc.s, tc.o, tc.r, fused, plain)
			}
		}
	}
}

// FuzzLenOfReplace compares the fused LEN(REPLACE(s, o, r)) with the
// built string's.
func FuzzLenOfReplace(f *testing.F) {
	for _, tc := range lenReplaceCases {
		if s, ok := tc.s.(string); ok {
			if o, ok := tc.o.(string); ok {
				if r, ok := tc.r.(string); ok {
					f.Add(s, o, r)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, s, o, r string) {
		fused, plain := lenReplaceBoth(t, 64, s, o, r)
		if fused != plain {
			t.Fatalf("LEN(REPLACE(%q, %q, %q)): fused %s, built %s", s, o, r, fused, plain)
		}
	})
}

// lenReplaceBoth evaluates LEN(REPLACE(S, O, R)) fused and through the
// string (REPLACE in a CASE, which is not a call node) over one row,
// with a registry capping results at max bytes (0: the default), and
// renders each value, error and the function errors reported.
func lenReplaceBoth(t testing.TB, max int, s, o, r any) (fused, plain string) {
	schema := &types.Schema{Columns: []types.Column{
		{Name: "S", Type: types.StringType}, {Name: "O", Type: types.StringType}, {Name: "R", Type: types.StringType},
	}}
	reg := functions.NewRegistry(functions.WithMaxResultBytes(max))
	row := &types.Row{Values: []any{s, o, r}}
	eval := func(text string, wantFused bool) string {
		e, err := parser.ParseExpr(text)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compile(e, SchemaScope(schema, nil, false), reg)
		if err != nil {
			t.Fatal(err)
		}
		if isFused := c.n.call == nil; isFused != wantFused {
			t.Fatalf("%s: fused %v, want %v", text, isFused, wantFused)
		}
		var reported []string
		c = c.WithErrorLog(func(err error) { reported = append(reported, err.Error()) })
		v, err := c.Eval(row)
		return fmt.Sprintf("%s %v %q", render(v), err, reported)
	}
	return eval("LEN(REPLACE(s, o, r))", true), eval("LEN(CASE WHEN TRUE THEN REPLACE(s, o, r) END)", false)
}
