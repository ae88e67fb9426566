package qtt

// StripComments blanks out `//` line comments and `/* */` block comments
// that lie outside JSON strings, so the result parses as strict JSON. Every
// comment byte except newlines becomes a space: byte offsets, lines and
// columns in the result match the original text, so JSON syntax errors
// point at the right place.
func StripComments(src []byte) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	for i := 0; i < len(out); {
		switch {
		case out[i] == '"':
			i = skipString(out, i)
		case hasPrefixAt(out, i, "//"):
			i = blankUntil(out, i, "\n", false)
		case hasPrefixAt(out, i, "/*"):
			i = blankUntil(out, i, "*/", true)
		default:
			i++
		}
	}
	return out
}

// skipString returns the offset just past the JSON string starting at the
// quote at i (or len(b) when it is unterminated).
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// blankUntil blanks b from i up to the terminator (included when
// inclusive), keeping newlines, and returns the offset after it.
func blankUntil(b []byte, i int, term string, inclusive bool) int {
	for ; i < len(b) && !hasPrefixAt(b, i, term); i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	if inclusive {
		for j := 0; j < len(term) && i < len(b); j++ {
			b[i] = ' '
			i++
		}
	}
	return i
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return len(b)-i >= len(p) && string(b[i:i+len(p)]) == p
}
