package script

import (
	"strings"
	"unicode"
)

// Statement is one statement of a script.
type Statement struct {
	// Text runs from the statement's first character that is neither
	// blank nor part of a comment through its ';' (leading comments are
	// not part of a statement, as in ksqlDB).
	Text string
	// Offset is the byte offset of Text in the script, for error
	// positions.
	Offset int
}

// Split returns the complete statements of text and the unterminated rest
// (blank when text ends with a complete statement). Blank statements
// (";;") are dropped. A rest inside an open quote or block comment is
// returned as is.
func Split(text string) (stmts []Statement, rest string) {
	var sc scanner
	start := 0
	for i := 0; i < len(text); i++ {
		if !sc.step(text, &i) {
			continue
		}
		if s := text[start : i+1]; !isBlankStatement(s) {
			stmts = append(stmts, statementAt(text, start, i+1))
		}
		start = i + 1
	}
	return stmts, text[start:]
}

// All returns every statement of text: the complete ones and, unless it
// is blank, the unterminated rest as the last one. It is for texts whose
// end ends a statement (request bodies, script and test files), where
// Split is for text still being typed.
func All(text string) []Statement {
	stmts, rest := Split(text)
	if IsBlank(rest) {
		return stmts
	}
	end := len(strings.TrimRightFunc(text, unicode.IsSpace))
	return append(stmts, statementAt(text, len(text)-len(rest), end))
}

// statementAt is the statement text[start:end] without its leading
// blanks and comments.
func statementAt(text string, start, end int) Statement {
	k := start + leadingBlanks(text[start:end])
	return Statement{Text: text[k:end], Offset: k}
}

// leadingBlanks returns the length of the whitespace and complete
// comments that start s.
func leadingBlanks(s string) int {
	i := 0
	for {
		i = len(s) - len(strings.TrimLeftFunc(s[i:], unicode.IsSpace))
		var end int
		switch {
		case strings.HasPrefix(s[i:], "--"):
			end = strings.IndexByte(s[i:], '\n') + 1
		case strings.HasPrefix(s[i:], "/*"):
			if end = strings.Index(s[i+2:], "*/"); end >= 0 {
				end += 4
			}
		}
		if end <= 0 {
			return i
		}
		i += end
	}
}

// Complete reports whether text is blank or ends with a complete
// statement outside any quote or comment (what the REPL needs to stop
// reading continuation lines).
func Complete(text string) bool {
	_, rest := Split(text)
	return IsBlank(rest)
}

// IsBlank reports whether text holds only whitespace and comments.
func IsBlank(text string) bool {
	var sc scanner
	for i := 0; i < len(text); i++ {
		sc.step(text, &i)
	}
	if sc.state != normal && sc.state != lineComment {
		return false // inside a quote or a block comment
	}
	return strings.TrimSpace(stripComments(text)) == ""
}

// FirstWord returns the first word of a statement, upper-cased, skipping
// leading whitespace and comments: "SELECT", "CREATE", "PRINT"; "" if none.
func FirstWord(stmt string) string {
	s := stripComments(stmt)
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	end := strings.IndexFunc(s, func(r rune) bool { return !isWordRune(r) })
	if end < 0 {
		end = len(s)
	}
	return strings.ToUpper(s[:end])
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isBlankStatement(s string) bool {
	return strings.TrimSpace(stripComments(strings.TrimSuffix(s, ";"))) == ""
}

// stripComments replaces comments outside quotes by spaces.
func stripComments(text string) string {
	var b strings.Builder
	var sc scanner
	for i := 0; i < len(text); i++ {
		j, wasComment := i, sc.inComment()
		sc.step(text, &i)
		if wasComment || sc.inComment() {
			b.WriteByte(' ')
			continue
		}
		b.WriteString(text[j : i+1])
	}
	return b.String()
}
