package script

import (
	"strings"
	"unicode"
)

// Statement is one semicolon-terminated statement of a script.
type Statement struct {
	Text   string // from its first non-blank character through the ';'
	Offset int    // byte offset of Text in the script
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
		if s := strings.TrimLeftFunc(text[start:i+1], unicode.IsSpace); !isBlankStatement(s) {
			stmts = append(stmts, Statement{Text: s, Offset: i + 1 - len(s)})
		}
		start = i + 1
	}
	return stmts, text[start:]
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
