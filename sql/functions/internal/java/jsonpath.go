package java

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// JSONPathTokens splits an EXTRACTJSONFIELD path into its steps, following
// ksqlDB's JsonPathTokenizer: the path starts with '$', followed by
// ".name" steps (letters, digits, '_' and ':') and "[index]" or
// "[\"quoted name\"]" subscripts (a backslash escapes the next character in
// a quoted name). "$.logs[0].cloud" yields logs, 0, cloud.
func JSONPathTokens(path string) ([]string, error) {
	t := &pathTokenizer{path: path}
	if !t.tryMatch('$') {
		return nil, t.invalid()
	}
	var toks []string
	for t.pos < len(path) {
		tok, err := t.next()
		if err != nil {
			return nil, err
		}
		toks = append(toks, tok)
	}
	return toks, nil
}

type pathTokenizer struct {
	path string
	pos  int
}

func (t *pathTokenizer) invalid() error {
	return fmt.Errorf("invalid JSON path: '%s' (at offset %d)", t.path, t.pos)
}

func (t *pathTokenizer) tryMatch(c byte) bool {
	if t.pos < len(t.path) && t.path[t.pos] == c {
		t.pos++
		return true
	}
	return false
}

func (t *pathTokenizer) next() (string, error) {
	if t.tryMatch('.') {
		return t.unquoted(isPathSegmentRune)
	}
	if !t.tryMatch('[') {
		return "", t.invalid()
	}
	var tok string
	var err error
	if t.tryMatch('"') {
		tok, err = t.quoted()
	} else {
		tok, err = t.unquoted(isSubscriptRune)
	}
	if err != nil {
		return "", err
	}
	if !t.tryMatch(']') {
		return "", t.invalid()
	}
	return tok, nil
}

func isSubscriptRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isPathSegmentRune(r rune) bool { return r == ':' || isSubscriptRune(r) }

func (t *pathTokenizer) unquoted(ok func(rune) bool) (string, error) {
	start := t.pos
	for t.pos < len(t.path) {
		r, size := utf8.DecodeRuneInString(t.path[t.pos:])
		if !ok(r) {
			break
		}
		t.pos += size
	}
	if t.pos == start {
		return "", t.invalid()
	}
	return t.path[start:t.pos], nil
}

func (t *pathTokenizer) quoted() (string, error) {
	var b strings.Builder
	for t.pos < len(t.path) {
		c := t.path[t.pos]
		t.pos++
		switch {
		case c == '"':
			return b.String(), nil
		case c == '\\' && t.pos < len(t.path):
			b.WriteByte(t.path[t.pos])
			t.pos++
		default:
			b.WriteByte(c)
		}
	}
	return "", t.invalid()
}
