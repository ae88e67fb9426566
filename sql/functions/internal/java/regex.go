package java

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// ksqlDB's regular expressions are java.util.regex patterns; sqlstream
// runs them on Go's RE2 engine after translating the Java-only spellings
// that have an RE2 equivalent (see javaRegexToRE2). Known differences:
//
//   - lookaround, backreferences, possessive quantifiers, atomic groups,
//     class intersections ([a-z&&[^b]]) and the (?x) flag are not
//     supported: such a pattern is a runtime error;
//   - '.' excludes only '\n' (Java also excludes '\r', U+0085, U+2028 and
//     U+2029), '$' matches only at the very end without (?m) (Java also
//     before a final line terminator), \s does not include \x0B and \Z is
//     treated as \z;
//   - Java finds an empty match right after a non-empty one ("aaa" with
//     a* matches "aaa" and then ""), RE2 does not; Regex.FindAll adds
//     those matches back, except for patterns with ^, \A, \b or \B, whose
//     context it cannot see.

// Regex is a compiled pattern that finds matches as Java does.
type Regex struct {
	*regexp.Regexp
	// emptyAfterMatch is set when the pattern matches the empty string
	// and has no assertion looking left, so Java's extra empty matches
	// can be found by searching the rest of the input.
	emptyAfterMatch bool
	// window, when set, narrows the search for the first match
	// (regex_window.go).
	window *literalWindow
}

// CompileRegex compiles a java.util.regex pattern; a pattern RE2 cannot
// run (see above) is an error.
func CompileRegex(javaPattern string) (*Regex, error) {
	translated := javaRegexToRE2(javaPattern)
	re, err := regexp.Compile(translated)
	if err != nil {
		return nil, fmt.Errorf("invalid regular expression pattern: %s: %w", javaPattern, err)
	}
	out := &Regex{Regexp: re}
	// regexp.Compile parsed it with these flags: this parse cannot fail.
	if tree, err := syntax.Parse(translated, syntax.Perl); err == nil {
		// Java's extra empty matches are found by searching the rest of
		// the input, unless ^, \A, \b or \B look at the text before it.
		out.emptyAfterMatch = re.MatchString("") &&
			!hasOp(tree, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary)
		out.window = newLiteralWindow(tree, re.NumSubexp())
	}
	return out, nil
}

// hasOp reports whether re holds one of ops.
func hasOp(re *syntax.Regexp, ops ...syntax.Op) bool {
	return slices.Contains(ops, re.Op) || slices.ContainsFunc(re.Sub, func(s *syntax.Regexp) bool { return hasOp(s, ops...) })
}

// FindAll lists the submatch indexes of all matches, as repeated calls
// of Java's Matcher.find would.
func (re *Regex) FindAll(s string) [][]int {
	if !re.mayMatch(s) {
		return nil
	}
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if !re.emptyAfterMatch {
		return ms
	}
	var out [][]int
	for i, m := range ms {
		out = append(out, m)
		end := m[1]
		if m[0] == end || i+1 < len(ms) && ms[i+1][0] == end {
			continue
		}
		if e := re.FindStringSubmatchIndex(s[end:]); e != nil && e[0] == 0 && e[1] == 0 {
			for j := range e {
				if e[j] >= 0 {
					e[j] += end
				}
			}
			out = append(out, e)
		}
	}
	return out
}

// posixClass maps Java's \p{…} POSIX class names to RE2's class names.
func posixClass(name string) (string, bool) {
	switch name {
	case "Lower", "Upper", "ASCII", "Alpha", "Digit", "Alnum", "Punct", "Graph", "Print", "Blank",
		"Cntrl", "XDigit", "Space":
		return strings.ToLower(name), true
	}
	return "", false
}

// javaRegexToRE2 rewrites Java-only escapes: POSIX \p{Alpha} classes,
// \p{IsX} script/category names, \h, \R and \Z. Everything else is passed
// through unchanged.
func javaRegexToRE2(p string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			i += translateEscape(&b, p, i, depth > 0)
		case c == '[':
			depth++
			b.WriteByte(c)
		case c == ']' && depth > 0:
			depth--
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// translateEscape writes the translation of the escape at p[i] and returns
// how many bytes after the backslash it consumed.
func translateEscape(b *strings.Builder, p string, i int, inClass bool) int {
	e := p[i+1]
	switch e {
	case 'p', 'P':
		if name, n, ok := braceName(p[i+2:]); ok {
			b.WriteString(propertyClass(e == 'P', name, inClass))
			return n + 1
		}
	case 'h':
		b.WriteString(wrapClass(`\t \x{a0}\x{1680}\x{180e}\x{2000}-\x{200a}\x{202f}\x{205f}\x{3000}`, inClass))
		return 1
	case 'R':
		if !inClass {
			b.WriteString(`(?:\r\n|[\n\x0B\f\r\x{85}\x{2028}\x{2029}])`)
			return 1
		}
	case 'Z':
		b.WriteString(`\z`)
		return 1
	}
	b.WriteString(p[i : i+2])
	return 1
}

// braceName reads "{name}" at the start of s.
func braceName(s string) (name string, n int, ok bool) {
	if !strings.HasPrefix(s, "{") {
		return "", 0, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0, false
	}
	return s[1:end], end + 1, true
}

func propertyClass(negated bool, name string, inClass bool) string {
	if posix, ok := posixClass(name); ok {
		neg := ""
		if negated {
			neg = "^"
		}
		return wrapClass("[:"+neg+posix+":]", inClass)
	}
	name = strings.TrimPrefix(name, "Is")
	if negated {
		return `\P{` + name + `}`
	}
	return `\p{` + name + `}`
}

func wrapClass(members string, inClass bool) string {
	if inClass {
		return members
	}
	return "[" + members + "]"
}

// AppendReplacement writes repl for one match with Java's
// Matcher.appendReplacement rules: "\x" is a literal x, "$n" takes as
// many digits as still name an existing group, "${name}" a named group.
func AppendReplacement(out *strings.Builder, re *Regex, repl, src string, m []int) error {
	for i := 0; i < len(repl); i++ {
		switch c := repl[i]; c {
		case '\\':
			i++
			if i == len(repl) {
				return fmt.Errorf("character to be escaped is missing in replacement %q", repl)
			}
			out.WriteByte(repl[i])
		case '$':
			group, n, err := replacementGroup(re, repl[i+1:])
			if err != nil {
				return fmt.Errorf("replacement %q: %w", repl, err)
			}
			if m[2*group] >= 0 {
				out.WriteString(src[m[2*group]:m[2*group+1]])
			}
			i += n
		default:
			out.WriteByte(c)
		}
	}
	return nil
}

// replacementGroup parses the group reference after a '$' and returns the
// group index and the number of bytes it spans.
func replacementGroup(re *Regex, s string) (group, n int, err error) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, 0, fmt.Errorf("named capturing group is missing trailing '}'")
		}
		idx := re.SubexpIndex(s[1:end])
		if idx < 0 {
			return 0, 0, fmt.Errorf("no group with name {%s}", s[1:end])
		}
		return idx, end + 1, nil
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, 0, fmt.Errorf("illegal group reference")
	}
	group, n = int(s[0]-'0'), 1
	if group > re.NumSubexp() {
		return 0, 0, fmt.Errorf("no group %d", group)
	}
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		next := group*10 + int(s[n]-'0')
		if next > re.NumSubexp() {
			break
		}
		group, n = next, n+1
	}
	return group, n, nil
}

// PatternSplit is Pattern.split for patterns that match the empty string: no
// leading empty element for a zero-width match at the start, trailing
// empty elements removed.
func PatternSplit(re *Regex, s string) []string {
	var parts []string
	index := 0
	for _, m := range re.FindAll(s) {
		if m[1] == 0 {
			continue
		}
		parts = append(parts, s[index:m[0]])
		index = m[1]
	}
	if parts == nil {
		return []string{s}
	}
	parts = append(parts, s[index:])
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
