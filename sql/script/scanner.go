package script

// state is where the scanner is in the text.
type state uint8

const (
	normal state = iota
	singleQuote
	doubleQuote
	backQuote
	lineComment
	blockComment
)

// scanner tracks quotes and comments one byte at a time.
type scanner struct {
	state state
}

func (sc *scanner) inComment() bool {
	return sc.state == lineComment || sc.state == blockComment
}

// step consumes text[*i] (and the byte after it for two-byte tokens,
// advancing *i) and reports whether it was a statement-ending ';'.
func (sc *scanner) step(text string, i *int) bool {
	c := text[*i]
	switch sc.state {
	case normal:
		return sc.stepNormal(text, i, c)
	case singleQuote:
		sc.closeQuote(text, i, c, '\'')
	case doubleQuote:
		sc.closeQuote(text, i, c, '"')
	case backQuote:
		sc.closeQuote(text, i, c, '`')
	case lineComment:
		if c == '\n' {
			sc.state = normal
		}
	case blockComment:
		if c == '*' && next(text, *i) == '/' {
			*i++
			sc.state = normal
		}
	}
	return false
}

func (sc *scanner) stepNormal(text string, i *int, c byte) bool {
	switch {
	case c == ';':
		return true
	case c == '\'':
		sc.state = singleQuote
	case c == '"':
		sc.state = doubleQuote
	case c == '`':
		sc.state = backQuote
	case c == '-' && next(text, *i) == '-':
		*i++
		sc.state = lineComment
	case c == '/' && next(text, *i) == '*':
		*i++
		sc.state = blockComment
	}
	return false
}

// closeQuote ends a quoted section at quote, unless the quote is doubled
// (an escaped quote character).
func (sc *scanner) closeQuote(text string, i *int, c, quote byte) {
	if c != quote {
		return
	}
	if next(text, *i) == quote {
		*i++
		return
	}
	sc.state = normal
}

func next(text string, i int) byte {
	if i+1 < len(text) {
		return text[i+1]
	}
	return 0
}
