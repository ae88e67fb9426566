package parser

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tIdent            // unquoted word (keyword or identifier); Val is upper case
	tQuoted           // `backticked` or "double-quoted" identifier; Val keeps case
	tString           // 'string'; Val is the decoded text
	tNumber           // 123, 1.5, .5, 1e3; Val is the text
	tVariable         // ${name}, left when no substitution ran
	tPunct            // operators and punctuation; Val is the text
)

// token is one lexical token with its place in the user's text.
type token struct {
	Kind tokKind
	Val  string
	Raw  string // the exact source text
	P    ast.Pos
}

// is reports whether t is the unquoted keyword kw (upper case).
func (t token) is(kw string) bool { return t.Kind == tIdent && t.Val == kw }

// isPunct reports whether t is the punctuation p.
func (t token) isPunct(p string) bool { return t.Kind == tPunct && t.Val == p }

// end returns the byte offset just past the token.
func (t token) end() int { return t.P.Offset + len(t.Raw) }

// lexer splits text into tokens, tracking line and column.
type lexer struct {
	src  string
	off  int
	line int
	col  int
}

// tokenize returns the tokens of src, ending with a tEOF token. check is
// called with each token and stops the scan when it returns an error.
func tokenize(src string, check func(token) error) ([]token, error) {
	lx := &lexer{src: src, line: 1, col: 1}
	toks := make([]token, 0, len(src)/4)
	depth := 0
	for {
		if err := lx.skipSpace(); err != nil {
			return nil, err
		}
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		if err := nest(&depth, src, t); err != nil {
			return nil, err
		}
		if err := check(t); err != nil {
			return nil, err
		}
		toks = append(toks, t)
		if t.Kind == tEOF {
			return toks, nil
		}
	}
}

func (lx *lexer) pos() ast.Pos { return ast.Pos{Line: lx.line, Col: lx.col, Offset: lx.off} }

// advance moves n bytes forward, counting lines.
func (lx *lexer) advance(n int) {
	for i := 0; i < n && lx.off < len(lx.src); i++ {
		c := lx.src[lx.off]
		lx.off++
		if c == '\n' {
			lx.line++
			lx.col = 1
		} else if c < 0x80 || c >= 0xC0 {
			lx.col++
		}
	}
}

func (lx *lexer) peekAt(i int) byte {
	if lx.off+i < len(lx.src) {
		return lx.src[lx.off+i]
	}
	return 0
}

func (lx *lexer) errorf(p ast.Pos, near, format string, args ...any) error {
	e := sqlerr.New(sqlerr.Syntax, p, format, args...)
	e.Near = near
	e.SQL = lx.src
	return e
}

// skipSpace skips white space and comments.
func (lx *lexer) skipSpace() error {
	for lx.off < len(lx.src) {
		c := lx.src[lx.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			lx.advance(1)
		case c == '-' && lx.peekAt(1) == '-':
			n := strings.IndexByte(lx.src[lx.off:], '\n')
			if n < 0 {
				n = len(lx.src) - lx.off
			}
			lx.advance(n)
		case c == '/' && lx.peekAt(1) == '*':
			p := lx.pos()
			n := strings.Index(lx.src[lx.off+2:], "*/")
			if n < 0 {
				return lx.errorf(p, "/*", "unterminated comment")
			}
			lx.advance(n + 4)
		default:
			return nil
		}
	}
	return nil
}

// next scans one token at the current offset (after white space).
func (lx *lexer) next() (token, error) {
	p := lx.pos()
	if lx.off >= len(lx.src) {
		return token{Kind: tEOF, P: p}, nil
	}
	c := lx.src[lx.off]
	switch {
	case identCharLen(lx.src, lx.off, true) > 0:
		return lx.word(p), nil
	case isDigit(c) || (c == '.' && isDigit(lx.peekAt(1))):
		return lx.number(p), nil
	case c == '\'':
		return lx.quoted(p, '\'', tString)
	case c == '`':
		return lx.quoted(p, '`', tQuoted)
	case c == '"':
		return lx.quoted(p, '"', tQuoted)
	case c == '$' && lx.peekAt(1) == '{':
		return lx.variable(p)
	}
	return lx.punct(p)
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// identCharLen is the byte length of the name character at src[i], or 0
// when there is none: ASCII letters and _ (then digits and @ too), as in
// ksqlDB, and beyond it any Unicode letter (then digits and combining
// marks too). Symbols such as € are not name characters.
func identCharLen(src string, i int, first bool) int {
	c := src[i]
	if c < utf8.RuneSelf {
		if isIdentStart(c) || (!first && (isDigit(c) || c == '@')) {
			return 1
		}
		return 0
	}
	r, n := utf8.DecodeRuneInString(src[i:])
	if unicode.IsLetter(r) || (!first && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))) {
		return n
	}
	return 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (lx *lexer) word(p ast.Pos) token {
	start := lx.off
	n := 0
	for start+n < len(lx.src) {
		k := identCharLen(lx.src, start+n, false)
		if k == 0 {
			break
		}
		n += k
	}
	lx.advance(n)
	raw := lx.src[start:lx.off]
	return token{Kind: tIdent, Val: strings.ToUpper(raw), Raw: raw, P: p}
}

func (lx *lexer) number(p ast.Pos) token {
	start := lx.off
	i := start
	for i < len(lx.src) && isDigit(lx.src[i]) {
		i++
	}
	if i < len(lx.src) && lx.src[i] == '.' {
		i++
		for i < len(lx.src) && isDigit(lx.src[i]) {
			i++
		}
	}
	if i < len(lx.src) && (lx.src[i] == 'e' || lx.src[i] == 'E') {
		j := i + 1
		if j < len(lx.src) && (lx.src[j] == '+' || lx.src[j] == '-') {
			j++
		}
		if j < len(lx.src) && isDigit(lx.src[j]) {
			for j < len(lx.src) && isDigit(lx.src[j]) {
				j++
			}
			i = j
		}
	}
	if id := digitIdentEnd(lx.src, start); id > i {
		lx.advance(id - start)
		raw := lx.src[start:id]
		return token{Kind: tIdent, Val: strings.ToUpper(raw), Raw: raw, P: p}
	}
	lx.advance(i - start)
	raw := lx.src[start:i]
	return token{Kind: tNumber, Val: raw, Raw: raw, P: p}
}

// digitIdentEnd is where a digit-led identifier starting at start would
// end (ksqlDB's DIGIT_IDENTIFIER: a digit, then letters, digits, '_' and
// '@'), or start when src[start] is not a digit. As in ksqlDB's lexer the
// longer match wins and a number wins a tie: 1abc and 1e3x are names,
// 123 and 1e3 numbers.
func digitIdentEnd(src string, start int) int {
	if !isDigit(src[start]) {
		return start
	}
	j := start + 1
	for j < len(src) && isASCIIIdentChar(src[j]) {
		j++
	}
	return j
}

// isASCIIIdentChar is a character ksqlDB's lexer allows after the first
// one of an identifier: a letter, a digit, '_' or '@'.
func isASCIIIdentChar(c byte) bool {
	return c == '_' || c == '@' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// quoted scans a token delimited by q, where a doubled q stands for one.
func (lx *lexer) quoted(p ast.Pos, q byte, kind tokKind) (token, error) {
	start := lx.off
	var b strings.Builder
	i := start + 1
	for {
		if i >= len(lx.src) {
			what := "string literal"
			if kind == tQuoted {
				what = "quoted identifier"
			}
			return token{}, lx.errorf(p, lx.src[start:min(len(lx.src), start+20)], "unterminated %s", what)
		}
		c := lx.src[i]
		if c == q {
			if i+1 < len(lx.src) && lx.src[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			break
		}
		if c == 0 && kind == tQuoted {
			// A NUL cannot name anything: topics, store directories and
			// the C strings of other tools end at it.
			lx.advance(i - start)
			return token{}, lx.errorf(lx.pos(), `\x00`, "a quoted identifier cannot contain a NUL character")
		}
		b.WriteByte(c)
		i++
	}
	lx.advance(i + 1 - start)
	return token{Kind: kind, Val: b.String(), Raw: lx.src[start:lx.off], P: p}, nil
}

func (lx *lexer) variable(p ast.Pos) (token, error) {
	start := lx.off
	n := strings.IndexByte(lx.src[start:], '}')
	if n < 0 {
		return token{}, lx.errorf(p, "${", "unterminated variable reference")
	}
	lx.advance(n + 1)
	raw := lx.src[start:lx.off]
	return token{Kind: tVariable, Val: raw[2 : len(raw)-1], Raw: raw, P: p}, nil
}

// twoCharPuncts and oneCharPuncts are the operators and punctuation the
// lexer knows, separated by spaces; two-character ones are tried first.
const (
	twoCharPuncts = " => := -> <= >= <> != || "
	oneCharPuncts = "()[],;.*+-/%=<>:"
)

func (lx *lexer) punct(p ast.Pos) (token, error) {
	rest := lx.src[lx.off:]
	if len(rest) >= 2 && strings.Contains(twoCharPuncts, " "+rest[:2]+" ") {
		lx.advance(2)
		return token{Kind: tPunct, Val: rest[:2], Raw: rest[:2], P: p}, nil
	}
	if strings.IndexByte(oneCharPuncts, rest[0]) >= 0 {
		lx.advance(1)
		return token{Kind: tPunct, Val: rest[:1], Raw: rest[:1], P: p}, nil
	}
	r, n := utf8.DecodeRuneInString(rest)
	return token{}, lx.errorf(p, rest[:n], "unexpected character %q", r)
}
