package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// The parsers of user-supplied text must never panic.

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,"x\u00e9"]}`, `[`, `"\ud83d"`, `-0.0`, ` `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := java.ParseJSON(s); err == nil && n != nil {
			java.JSONText(n, true)
			java.JSONText(n, false)
		}
		jsonArrayContains([]any{s, "x"})
	})
}

func FuzzParseJavaURI(f *testing.F) {
	for _, s := range []string{"http://u@h.com:80/p?q#f", "mailto:x", "//[::1]:8/", "a:b:c", "%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		java.ParseURI(s)
		urlDecodeParam([]any{s})
	})
}

func FuzzJSONPath(f *testing.F) {
	for _, s := range []string{`$.a[0]["b\"c"]`, `$[`, `$.`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		extractJSONField([]any{`{"a":[{"b\"c":1}]}`, s})
	})
}

func FuzzJavaRegex(f *testing.F) {
	for _, s := range []string{`\p{Alpha}+`, `[\p{Digit}\h]`, `a*`, `(?<n>x)\Z`, `\`} {
		f.Add(s, "aaa 123")
	}
	c := &regexCache{}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		c.split([]any{input, pattern})
		c.replace([]any{input, pattern, "$0\\$"})
		c.extractAll([]any{pattern, input})
	})
}
