package parser

import (
	"context"
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Parse parses one or more `;`-separated ksqlDB statements. Each
// statement's Base carries its own original text (without the trailing
// semicolon) and start position. Errors are *sqlerr.Error whose position
// points into text.
func Parse(text string, opts ...Option) ([]ast.Statement, error) {
	s := newSession(text, opts)
	toks, err := tokenize(text, s.check)
	if err != nil {
		return nil, err
	}
	var out []ast.Statement
	for _, stmt := range splitStatements(toks) {
		st, err := s.statement(stmt)
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// splitStatements cuts toks at `;` tokens, which it turns into the EOF
// token each piece ends with (placed where the statement ends). Empty
// statements are dropped. The pieces share toks.
func splitStatements(toks []token) [][]token {
	var out [][]token
	start := 0
	for i, t := range toks {
		if !t.isPunct(";") && t.Kind != tEOF {
			continue
		}
		toks[i] = token{Kind: tEOF, P: t.P}
		if i > start {
			out = append(out, toks[start:i+1:i+1])
		}
		start = i + 1
	}
	return out
}

// session holds what is shared while parsing one input text: the text
// itself (for error rendering), the TiDB parser (created on first use)
// and the custom types known so far.
type session struct {
	src         string
	tidb        *tidb.Parser
	customTypes map[string]*types.Type // CREATE TYPE seen earlier in the text
	lookupType  func(name string) (*types.Type, bool)
	ctx         context.Context // see WithContext; nil: never done
	steps       int             // steps counted by check
}

// newSession returns the session of text, configured by opts.
func newSession(text string, opts []Option) *session {
	s := &session{src: text}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Option configures Parse.
type Option func(*session)

// WithTypes makes Parse resolve custom type names (from CREATE TYPE
// statements run earlier) with lookup; names are upper case unless they
// were quoted. Default: only types created earlier in the same text.
func WithTypes(lookup func(name string) (*types.Type, bool)) Option {
	return func(s *session) { s.lookupType = lookup }
}

// customType resolves a custom type name.
func (s *session) customType(name string) (*types.Type, bool) {
	if t, ok := s.customTypes[name]; ok {
		return t, true
	}
	if s.lookupType != nil {
		return s.lookupType(name)
	}
	return nil, false
}

// statement parses the tokens of one statement.
func (s *session) statement(toks []token) (ast.Statement, error) {
	p := &parser{s: s, toks: toks}
	st, err := p.statement()
	if err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.unexpected()
	}
	return st, nil
}

// parser is a cursor over the tokens of one statement.
type parser struct {
	s     *session
	toks  []token
	i     int
	match []int // closing bracket of each opening one, see matching
	depth int   // nesting of the type being parsed, see enter
}

func (p *parser) peek() token       { return p.toks[p.i] }
func (p *parser) peekN(n int) token { return p.toks[min(p.i+n, len(p.toks)-1)] }
func (p *parser) at(k tokKind) bool { return p.toks[p.i].Kind == k }
func (p *parser) atKw(kw string) bool {
	return p.toks[p.i].is(kw)
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.Kind != tEOF {
		p.i++
	}
	return t
}

// accept consumes the keyword kw if it is next.
func (p *parser) accept(kw string) bool {
	if p.atKw(kw) {
		p.i++
		return true
	}
	return false
}

// acceptPunct consumes the punctuation s if it is next.
func (p *parser) acceptPunct(s string) bool {
	if p.peek().isPunct(s) {
		p.i++
		return true
	}
	return false
}

// expect consumes the keywords kws in order.
func (p *parser) expect(kws ...string) error {
	for _, kw := range kws {
		if !p.accept(kw) {
			return p.expected(kw)
		}
	}
	return nil
}

func (p *parser) expectPunct(s string) error {
	if !p.acceptPunct(s) {
		return p.expected("'" + s + "'")
	}
	return nil
}

// text returns the source text from token a up to (not including) token b.
func (p *parser) text(a, b int) string {
	if b <= a {
		return ""
	}
	return p.s.src[p.toks[a].P.Offset:p.toks[b-1].end()]
}

// errAt returns a syntax-class error at token t.
func (p *parser) errAt(t token, code sqlerr.Code, format string, args ...any) *sqlerr.Error {
	e := sqlerr.New(code, t.P, format, args...)
	e.Near = t.Raw
	e.SQL = p.s.src
	return e
}

func (p *parser) expected(what string) error {
	t := p.peek()
	if t.Kind == tEOF {
		return p.errAt(t, sqlerr.Syntax, "expected %s but the statement ended", what)
	}
	return p.errAt(t, sqlerr.Syntax, "expected %s", what)
}

func (p *parser) unexpected() error {
	t := p.peek()
	if t.Kind == tEOF {
		return p.errAt(t, sqlerr.Syntax, "unexpected end of statement")
	}
	return p.errAt(t, sqlerr.Syntax, "syntax error")
}

// name consumes an identifier and applies the case rule: unquoted names
// are upper-cased, quoted ones keep their case.
func (p *parser) name(what string) (string, token, error) {
	t := p.peek()
	switch t.Kind {
	case tIdent, tQuoted:
		if err := p.checkNotReserved(t); err != nil {
			return "", t, err
		}
		p.i++
		return t.Val, t, nil
	case tVariable:
		return "", t, p.errAt(t, sqlerr.Syntax, "variable ${%s} was not substituted", t.Val)
	}
	return "", t, p.expected(what)
}

// keywordSet returns whether word is among the space-separated words.
func keywordSet(words, word string) bool {
	return strings.Contains(words, " "+word+" ")
}

// statement dispatches on the first keyword.
func (p *parser) statement() (ast.Statement, error) {
	t := p.peek()
	if t.Kind != tIdent {
		return nil, p.errAt(t, sqlerr.Syntax, "expected a statement")
	}
	switch t.Val {
	case "CREATE":
		return p.create()
	case "INSERT":
		return p.insert()
	case "SELECT":
		return p.query(p.i)
	case "SHOW", "LIST":
		return p.show()
	case "DESCRIBE":
		return p.describe()
	case "EXPLAIN":
		return p.explain()
	case "DROP":
		return p.drop()
	case "TERMINATE":
		return p.terminate()
	case "PRINT":
		return p.print()
	case "SET":
		return p.set()
	case "UNSET":
		return p.unset()
	case "DEFINE":
		return p.define()
	case "UNDEFINE":
		return p.undefine()
	case "ASSERT":
		return p.assert()
	case "ALTER":
		return p.alter()
	case "PAUSE", "RESUME":
		return p.pauseResume(t.Val == "RESUME")
	case "RUN":
		return nil, p.unsupported(t, t.Val)
	}
	return nil, p.errAt(t, sqlerr.Syntax, "unknown statement %s", t.Val)
}

// base returns the Base of a statement starting at token start and ending
// before the EOF token.
func (p *parser) base(start int) ast.Base {
	return ast.Base{SQL: p.text(start, len(p.toks)-1), P: p.toks[start].P}
}

// unsupported reports a statement we understand but do not run.
func (p *parser) unsupported(t token, what string) error {
	return p.errAt(t, sqlerr.Unsupported, "%s is not supported", what)
}
