package qtt

import "strings"

// SplitStatements splits SQL text into statements at semicolons outside
// '…' strings, `…` and "…" identifiers, -- line comments and /* */ block
// comments. Each statement keeps its semicolon; blank and comment-only
// pieces are dropped.
func SplitStatements(sql string) []string {
	var out []string
	start := 0
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == '\'' || c == '`' || c == '"':
			i = skipQuoted(sql, i, c)
		case strings.HasPrefix(sql[i:], "--"):
			i = skipPast(sql, i, "\n")
		case strings.HasPrefix(sql[i:], "/*"):
			i = skipPast(sql, i+2, "*/")
		case c == ';':
			out = appendStatement(out, sql[start:i+1])
			i++
			start = i
		default:
			i++
		}
	}
	return appendStatement(out, sql[start:])
}

// skipQuoted returns the offset after the quoted run opened at i; a
// doubled quote is an escaped quote.
func skipQuoted(s string, i int, q byte) int {
	for i++; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if i+1 < len(s) && s[i+1] == q {
			i++
			continue
		}
		return i + 1
	}
	return len(s)
}

// skipPast returns the offset after the next end at or after i.
func skipPast(s string, i int, end string) int {
	j := strings.Index(s[i:], end)
	if j < 0 {
		return len(s)
	}
	return i + j + len(end)
}

// appendStatement appends stmt without its leading comments and blanks,
// unless nothing but a semicolon is left.
func appendStatement(out []string, stmt string) []string {
	stmt = strings.TrimSpace(stmt[leadingComments(stmt):])
	if stmt == "" || stmt == ";" {
		return out
	}
	return append(out, stmt)
}

// leadingComments returns the length of the comments and whitespace that
// start s.
func leadingComments(s string) int {
	i := 0
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "--"):
			i = skipPast(s, i, "\n")
		case strings.HasPrefix(s[i:], "/*"):
			i = skipPast(s, i+2, "*/")
		case strings.IndexByte(" \t\r\n", s[i]) >= 0:
			i++
		default:
			return i
		}
	}
	return i
}
