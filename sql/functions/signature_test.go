package functions

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestParseSignature(t *testing.T) {
	cases := []struct {
		sig      string
		params   string // type texts, "name:type", "…" marks the variadic
		ret      string
		variadic int
	}{
		{"ABS(INTEGER) INTEGER", "INTEGER", "INTEGER", -1},
		{"SUBSTRING(STRING str, INTEGER pos, INTEGER len) STRING", "str:STRING pos:INTEGER len:INTEGER", "STRING", -1},
		{"CONCAT(STRING...) STRING", "STRING…", "STRING", 0},
		{"F(INT a, STRING names..., BOOLEAN b) MAP<STRING, T>", "a:INT names:STRING… b:BOOLEAN", "MAP<STRING, T>", 1},
		{"ARRAY_CONTAINS(ARRAY<T>, T) BOOLEAN", "ARRAY<T> T", "BOOLEAN", -1},
		{"ROUND(DECIMAL(10,2) x) DECIMAL", "x:DECIMAL(10, 2)", "DECIMAL", -1},
		{"TRANSFORM(ARRAY<T> a, LAMBDA<T, U> f) ARRAY<U>", "a:ARRAY<T> f:LAMBDA<T, U>", "ARRAY<U>", -1},
		{"S(STRUCT<A INT, B STRING> s, STRUCT any) STRUCT", "s:STRUCT<A INT, B STRING> any:STRUCT", "STRUCT", -1},
		{"NOW() BIGINT", "", "BIGINT", -1},
	}
	for _, c := range cases {
		s, err := parseSignature(c.sig)
		if err != nil {
			t.Errorf("%s: %v", c.sig, err)
			continue
		}
		var ps []string
		for i, p := range s.params {
			txt := p.text
			if p.name != "" {
				txt = p.name + ":" + txt
			}
			if i == s.variadic {
				txt += "…"
			}
			ps = append(ps, txt)
		}
		if got := strings.Join(ps, " "); got != c.params || s.retText != c.ret || s.variadic != c.variadic {
			t.Errorf("%s: params %q ret %q variadic %d, want %q %q %d", c.sig, got, s.retText, s.variadic, c.params, c.ret, c.variadic)
		}
	}
}

func TestParseSignatureErrors(t *testing.T) {
	for _, sig := range []string{
		"F(INTEGER", "F(FOO) INTEGER", "F(INTEGER) ", "F(STRING..., INT...) INT", "F(LAMBDA<T>) T",
		"F(DECIMAL(a, b)) INT", "F(INTEGER) INTEGER extra", "F(ARRAY<INT) INT",
	} {
		if _, err := parseSignature(sig); err == nil {
			t.Errorf("%s: no error", sig)
		}
	}
}

func TestAddScalarErrors(t *testing.T) {
	r := NewRegistry()
	fn := func([]any) (any, error) { return nil, nil }
	cases := []ScalarDef{
		{Name: "UCASE", Overloads: []Overload{{Sig: "UCASE(STRING) STRING", Fn: fn}}},
		{Name: "COUNT", Overloads: []Overload{{Sig: "COUNT(STRING) STRING", Fn: fn}}},
		{Name: "MINE", Overloads: []Overload{{Sig: "OTHER(STRING) STRING", Fn: fn}}},
		{Name: "MINE", Overloads: []Overload{{Sig: "MINE(STRING STRING", Fn: fn}}},
		{Name: "MINE", Overloads: []Overload{{Sig: "MINE(STRING) STRING"}}},
	}
	for _, d := range cases {
		if err := r.AddScalar(d); err == nil {
			t.Errorf("AddScalar(%s %q): no error", d.Name, d.Overloads[0].Sig)
		}
	}
	if err := r.AddScalar(ScalarDef{Name: "mine", Overloads: []Overload{{Sig: "MINE(STRING) STRING", Fn: fn}}}); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Lookup("Mine"); !ok {
		t.Errorf("MINE is not found case-insensitively")
	}
}

func typeList(ts []*types.Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}
