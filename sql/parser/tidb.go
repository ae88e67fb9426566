package parser

import (
	"strings"

	tidb "github.com/pingcap/tidb/pkg/parser"
	tast "github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	// The TiDB parser needs a value-expression driver to build literals.
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// tidbParser returns the session's TiDB parser, creating it on first use:
// `||` is concatenation and backslashes are not escapes, as in ksqlDB.
func (s *session) tidbParser() *tidb.Parser {
	if s.tidb == nil {
		s.tidb = tidb.New()
		s.tidb.SetSQLMode(mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	}
	return s.tidb
}

// tidbSelect parses the rewritten SELECT held by w. A panic inside the
// TiDB parser becomes a syntax error at the start of the query rather
// than a crash.
func (p *parser) tidbSelect(w *rewriter) (sel *tast.SelectStmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.s.tidb = nil // its state is unknown now
			sel, err = nil, p.errAt(p.toks[w.pieces[0].tok], sqlerr.Syntax, "cannot parse this statement: %v", r)
		}
	}()
	text := w.text()
	stmt, err := p.s.tidbParser().ParseOneStmt(text, "", "")
	if err != nil {
		return nil, p.tidbError(w, text, err)
	}
	sel, ok := stmt.(*tast.SelectStmt)
	if !ok {
		return nil, p.errAt(p.toks[w.pieces[0].tok], sqlerr.Syntax, "expected a SELECT")
	}
	return sel, nil
}

// tidbError maps a TiDB syntax error, whose position is in the rewritten
// text, back to the user's token.
func (p *parser) tidbError(w *rewriter, text string, err error) error {
	msg := err.Error()
	k := strings.Index(msg, `near "`)
	tok := p.toks[w.pieces[0].tok]
	if k >= 0 {
		tok = p.toks[len(p.toks)-1]
		rest := msg[k+len(`near "`):]
		for off := 0; off < len(text); off++ {
			// rest starts with text[off:] and a quote (no concatenation:
			// that would copy the text once per offset).
			if tail := text[off:]; strings.HasPrefix(rest, tail) && strings.HasPrefix(rest[len(tail):], `"`) {
				tok = p.toks[w.tokenAt(off)]
				break
			}
		}
	}
	if tok.Kind == tEOF {
		return p.errAt(tok, sqlerr.Syntax, "unexpected end of statement")
	}
	return p.errAt(tok, sqlerr.Syntax, "syntax error")
}
