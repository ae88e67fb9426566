package java

import (
	"reflect"
	"testing"
)

func TestJSONPathTokens(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"$", nil},
		{"$.logs[0].cloud.region", []string{"logs", "0", "cloud", "region"}},
		{"$.user_id", []string{"user_id"}},
		{"$.a:b", []string{"a:b"}},
		{`$["a b"]["c\"d"]`, []string{"a b", `c"d`}},
		{"$.été", []string{"été"}},
	} {
		got, err := JSONPathTokens(tc.path)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("JSONPathTokens(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "a", "$.", "$..a", "$[0", `$["a]`, "$.a-b", "$ .a", "$[-1]"} {
		if got, err := JSONPathTokens(bad); err == nil {
			t.Errorf("JSONPathTokens(%q) = %q, want an error", bad, got)
		}
	}
}

func TestParseJSONLikeJackson(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":2,"b":3}`, `{"b":3,"a":2}`},
		{` [1, -0, 1.50, 1e2, -0.0, 1E-7] `, `[1,0,1.50,1E+2,0.0,1E-7]`},
		{`"\u00e9\ud83d\ude00\n\u0001"`, `"é😀\n\u0001"`},
		{`[true,false,null] trailing`, `[true,false,null]`},
		{`123 456`, `123`},
		{`"\ud800"`, `"` + "\uFFFD" + `"`},
	} {
		n, err := ParseJSON(tc.in)
		if err != nil {
			t.Errorf("ParseJSON(%q): %v", tc.in, err)
			continue
		}
		if got := JSONText(n, false); got != tc.want {
			t.Errorf("ParseJSON(%q) renders %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`{`, `[1,]`, `{"a" 1}`, `01`, `1.`, `.5`, `-`, `1e`, `tru`, `nul`, `"a`, "\"\x01\"", `"\x"`, `'a'`, `{a:1}`, `123abc`} {
		if n, err := ParseJSON(bad); err == nil {
			t.Errorf("ParseJSON(%q) = %v, want an error", bad, n)
		}
	}
	if n, err := ParseJSON(" \t\n"); n != nil || err != nil {
		t.Errorf("whitespace is missing, got %v, %v", n, err)
	}
}
