package java

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A pattern whose every match contains a literal a bounded number of
// bytes after the match's start (q21's (&|^)channel_id=([^&]*): the
// literal "channel_id=", at most 1 byte in) has its first match at or
// after (the literal's first occurrence − that bound). FindFirst searches
// from there, the literal found by strings.Index, instead of trying every
// position of the input; an input without the literal has no match.
//
//	input   https://www.nexmark.com/ab/item.htm?query=1&channel_id=1234
//	                                             |  strings.Index
//	searched                                    &channel_id=1234
//
// Searching a suffix changes what assertions about the text before it
// see: \A and ^ (without (?m)) cannot match after position 0, so the
// suffix is searched with a copy of the pattern where they never match;
// patterns with (?m)^, \b or \B get no window.

// literalWindow is that literal, the bound and the copy.
type literalWindow struct {
	lit    string
	maxPre int            // most bytes a match has before lit
	rest   *regexp.Regexp // the pattern with \A and ^ never matching
}

// minWindowLiteral is the shortest literal worth a window.
const minWindowLiteral = 2

// newLiteralWindow derives the window of a parsed (RE2) pattern, or nil
// when it has none.
func newLiteralWindow(re *syntax.Regexp, numSubexp int) *literalWindow {
	// (?m)^, \b and \B look at the byte before the position.
	if hasOp(re, syntax.OpBeginLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary) {
		return nil
	}
	parts := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		parts = re.Sub
	}
	var w *literalWindow
	pre := 0
	for _, p := range parts {
		if p.Op == syntax.OpLiteral && p.Flags&syntax.FoldCase == 0 && len(p.Rune) >= minWindowLiteral {
			if lit := string(p.Rune); w == nil || len(lit) > len(w.lit) {
				w = &literalWindow{lit: lit, maxPre: pre}
			}
		}
		n := maxWidth(p)
		if n < 0 {
			break
		}
		pre += n
	}
	if w == nil {
		return nil
	}
	rest, err := regexp.Compile(withoutBeginText(re).String())
	if err != nil || rest.NumSubexp() != numSubexp {
		return nil
	}
	w.rest = rest
	return w
}

// maxWidth is the most bytes re can match, -1 when unbounded.
func maxWidth(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return utf8.UTFMax * len(re.Rune) // 'k' also matches U+212A, 3 bytes
		}
		n := 0
		for _, r := range re.Rune {
			n += max(utf8.RuneLen(r), 1)
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) > 0 && re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return 1
		}
		return utf8.UTFMax
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxWidth(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		n := maxWidth(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return re.Max * n
	case syntax.OpConcat, syntax.OpAlternate:
		total := 0
		for _, s := range re.Sub {
			n := maxWidth(s)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				total += n
			} else {
				total = max(total, n)
			}
		}
		return total
	default: // empty-width assertions, empty match, no match
		return 0
	}
}

// withoutBeginText is a copy of re where \A and ^ never match.
func withoutBeginText(re *syntax.Regexp) *syntax.Regexp {
	if re.Op == syntax.OpBeginText {
		return &syntax.Regexp{Op: syntax.OpNoMatch, Flags: re.Flags}
	}
	c := *re
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = withoutBeginText(s)
		}
	}
	return &c
}

// FindFirst is FindStringSubmatchIndex: the first match of s and its
// groups' byte offsets, nil when there is none.
func (re *Regex) FindFirst(s string) []int {
	w := re.window
	if w == nil {
		return re.FindStringSubmatchIndex(s)
	}
	i := strings.Index(s, w.lit)
	if i < 0 {
		return nil
	}
	start := i - w.maxPre
	if start <= 0 {
		return re.FindStringSubmatchIndex(s)
	}
	// A match starts on a rune boundary as the search from 0 sees them:
	// step back over continuation bytes.
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	if start == 0 {
		return re.FindStringSubmatchIndex(s)
	}
	m := w.rest.FindStringSubmatchIndex(s[start:])
	for j := range m {
		if m[j] >= 0 {
			m[j] += start
		}
	}
	return m
}

// mayMatch is false when s lacks a literal every match contains.
func (re *Regex) mayMatch(s string) bool {
	return re.window == nil || strings.Contains(s, re.window.lit)
}
