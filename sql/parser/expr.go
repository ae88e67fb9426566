package parser

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// ParseExpr parses one expression, e.g. an INSERT VALUES value;
// WithTypes resolves custom type names in CASTs.
func ParseExpr(text string, opts ...Option) (ast.Expr, error) {
	s := newSession(text, opts)
	toks, err := tokenize(text, s.check)
	if err != nil {
		return nil, err
	}
	p := &parser{s: s, toks: toks}
	end := len(toks) - 1
	if end == 0 {
		return nil, p.expected("an expression")
	}
	exprs, err := p.exprList(0, end)
	if err != nil {
		return nil, err
	}
	if len(exprs) != 1 {
		return nil, p.errAt(toks[0], sqlerr.Syntax, "expected one expression, got %d", len(exprs))
	}
	return exprs[0], nil
}

// exprList parses the comma-separated expressions in tokens [a, b)
// through TiDB, as the select list of `SELECT e1, e2, …`.
func (p *parser) exprList(a, b int) ([]ast.Expr, error) {
	if a == b {
		return nil, nil
	}
	w := &rewriter{p: p}
	w.emit("SELECT ", a)
	if err := w.expr(a, b); err != nil {
		return nil, err
	}
	sel, err := p.tidbSelect(w)
	if err != nil {
		return nil, err
	}
	c := newConverter(p, w)
	out := make([]ast.Expr, 0, len(sel.Fields.Fields))
	for _, f := range sel.Fields.Fields {
		if f.WildCard != nil || f.AsName.O != "" || sel.From != nil || sel.Distinct {
			return nil, p.errAt(p.toks[w.tokenAt(f.Offset)], sqlerr.Syntax, "expected an expression")
		}
		e, err := c.expr(f.Expr)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
