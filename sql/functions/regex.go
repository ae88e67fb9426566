package functions

import (
	"fmt"
	"strings"
	"sync"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// The patterns are java.util.regex patterns, which java.CompileRegex
// translates for Go's RE2 engine (its doc lists what differs).

// regexCache keeps compiled patterns; patterns are usually literals, so a
// handful of entries serve a whole query. It belongs to one registry.
type regexCache struct {
	mu       sync.Mutex
	patterns map[string]*java.Regex
	reg      *Registry // for the result size limit; nil: the default
}

const regexCacheSize = 64

func (c *regexCache) compile(javaPattern string) (*java.Regex, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if re, ok := c.patterns[javaPattern]; ok {
		return re, nil
	}
	re, err := java.CompileRegex(javaPattern)
	if err != nil {
		return nil, err
	}
	if c.patterns == nil || len(c.patterns) >= regexCacheSize {
		c.patterns = map[string]*java.Regex{}
	}
	c.patterns[javaPattern] = re
	return re, nil
}

// CheckPattern compiles a java.util.regex pattern as the regular
// expression functions do, for a constant pattern at compile time.
func CheckPattern(javaPattern string) error {
	_, err := java.CompileRegex(javaPattern)
	return err
}

// regexDefs are the REGULAR EXPRESSION functions.
func regexDefs(r *Registry) []ScalarDef {
	c := &regexCache{reg: r}
	return []ScalarDef{
		{Name: "REGEXP_EXTRACT", Category: CatRegex,
			Description: "Extract the first substring matched by a regex pattern (or its capturing group).",
			Overloads: []Overload{
				{Sig: "REGEXP_EXTRACT(STRING pattern, STRING input) STRING", Fn: c.extract, Patterns: []int{0},
					Description: "Returns first substring of the input that matches the given regex pattern."},
				{Sig: "REGEXP_EXTRACT(STRING pattern, STRING input, INTEGER group) STRING", Fn: c.extract, Patterns: []int{0},
					Description: "Returns the first substring of the input that matches the regex pattern and the capturing group number specified."},
			}},
		{Name: "REGEXP_EXTRACT_ALL", Category: CatRegex,
			Description: "Extracts all substrings matched by a regex pattern (or its capturing group).",
			Overloads: []Overload{
				{Sig: "REGEXP_EXTRACT_ALL(STRING pattern, STRING input) ARRAY<STRING>", Fn: c.extractAll, Patterns: []int{0},
					Description: "Returns all substrings of the input that matches the given regex pattern."},
				{Sig: "REGEXP_EXTRACT_ALL(STRING pattern, STRING input, INTEGER group) ARRAY<STRING>", Fn: c.extractAll, Patterns: []int{0},
					Description: "Returns all substrings of the input that matches the regex pattern and the capturing group number specified."},
			}},
		{Name: "REGEXP_REPLACE", Category: CatRegex,
			Description: "Replaces all matches of a regexp in a string with a new substring " +
				"($n and ${name} refer to groups, a backslash escapes the next character).",
			Overloads: []Overload{{Sig: "REGEXP_REPLACE(STRING str, STRING regexp, STRING newStr) STRING", Fn: c.replace, Patterns: []int{1}}}},
		{Name: "REGEXP_SPLIT_TO_ARRAY", Category: CatRegex,
			Description: "Splits a string into an array of substrings based on a regexp. If the regexp is found at " +
				"the beginning of the string, end of the string, or there are contiguous matches in the string, " +
				"then empty strings are added to the array. If the regexp is not found, then the original string " +
				"is returned as the only element in the array. If the regexp is empty, then all characters in the " +
				"string are split.",
			Overloads: []Overload{{Sig: "REGEXP_SPLIT_TO_ARRAY(STRING string, STRING regexp) ARRAY<STRING>", Fn: c.split, Patterns: []int{1}}}},
	}
}

// matchGroup compiles the pattern and checks the group argument; ok is
// false when the group does not exist (the result is NULL).
func (c *regexCache) matchGroup(args []any) (re *java.Regex, group int, ok bool, err error) {
	re, err = c.compile(args[0].(string))
	if err != nil {
		return nil, 0, false, err
	}
	if len(args) > 2 {
		group = int(args[2].(int32))
	}
	if group < 0 {
		return nil, 0, false, fmt.Errorf("no group %d", group)
	}
	return re, group, group <= re.NumSubexp(), nil
}

func (c *regexCache) extract(args []any) (any, error) {
	re, group, ok, err := c.matchGroup(args)
	if !ok {
		return nil, err
	}
	input := args[1].(string)
	m := re.FindFirst(input)
	if m == nil || m[2*group] < 0 {
		return nil, nil
	}
	return input[m[2*group]:m[2*group+1]], nil
}

func (c *regexCache) extractAll(args []any) (any, error) {
	re, group, ok, err := c.matchGroup(args)
	if !ok {
		return nil, err
	}
	input := args[1].(string)
	out := []any{}
	for _, m := range re.FindAll(input) {
		if m[2*group] < 0 {
			out = append(out, nil)
			continue
		}
		out = append(out, input[m[2*group]:m[2*group+1]])
	}
	return out, nil
}

func (c *regexCache) replace(args []any) (any, error) {
	re, err := c.compile(args[1].(string))
	if err != nil {
		return nil, err
	}
	str, repl := args[0].(string), args[2].(string)
	var out strings.Builder
	last := 0
	for _, m := range re.FindAll(str) {
		out.WriteString(str[last:m[0]])
		if err := java.AppendReplacement(&out, re, repl, str, m); err != nil {
			return nil, err
		}
		last = m[1]
		if err := c.reg.CheckResult("REGEXP_REPLACE", int64(out.Len()+len(str)-last)); err != nil {
			return nil, err
		}
	}
	out.WriteString(str[last:])
	return out.String(), nil
}

func (c *regexCache) split(args []any) (any, error) {
	s, pattern := args[0].(string), args[1].(string)
	re, err := c.compile(pattern)
	if err != nil {
		return nil, err
	}
	var parts []string
	if re.MatchString("") {
		parts = java.PatternSplit(re, s)
	} else {
		parts = re.Split(s, -1)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out, nil
}
