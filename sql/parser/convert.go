package parser

import (
	tast "github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// converter turns TiDB's AST back into ours, undoing the rewrites and
// mapping every node's offset to the user's text.
type converter struct {
	p        *parser
	w        *rewriter
	distinct map[ast.Expr]bool // right operands marked IS DISTINCT FROM
	depth    int               // nesting of expr calls, at most sqlerr.MaxDepth
	chain    int               // left operands being converted, see left
}

func newConverter(p *parser, w *rewriter) *converter {
	return &converter{p: p, w: w}
}

// tok returns the user's token behind the node.
func (c *converter) tok(n tast.Node) token { return c.p.toks[c.w.tokenAt(n.OriginTextPosition())] }

func (c *converter) pos(n tast.Node) ast.Pos { return c.tok(n).P }

func (c *converter) fail(n tast.Node, code sqlerr.Code, format string, args ...any) error {
	return c.p.errAt(c.tok(n), code, format, args...)
}

// expr converts one expression.
func (c *converter) expr(n tast.ExprNode) (ast.Expr, error) {
	if c.depth >= sqlerr.MaxDepth {
		return nil, tooDeep(c.p.s.src, c.tok(n))
	}
	if err := c.p.s.check(c.tok(n)); err != nil {
		return nil, err
	}
	c.depth++
	defer func() { c.depth-- }()
	switch n := n.(type) {
	case *tast.ColumnNameExpr:
		if n.Name.Schema.O != "" {
			return nil, c.fail(n, sqlerr.Syntax, "too many qualifiers in %s.%s.%s", n.Name.Schema.O, n.Name.Table.O, n.Name.Name.O)
		}
		return &ast.ColumnRef{P: c.pos(n), Source: n.Name.Table.O, Name: n.Name.Name.O}, nil
	case tast.ValueExpr:
		return c.literal(n)
	case *tast.ParenthesesExpr:
		return c.expr(n.Expr)
	case *tast.FuncCallExpr:
		return c.call(n)
	case *tast.BinaryOperationExpr:
		return c.binary(n)
	case *tast.UnaryOperationExpr:
		return c.unary(n)
	}
	return c.predicate(n)
}

// predicate converts LIKE, IN, BETWEEN, IS NULL and CASE.
func (c *converter) predicate(n tast.ExprNode) (ast.Expr, error) {
	switch n := n.(type) {
	case *tast.PatternLikeOrIlikeExpr:
		return c.like(n)
	case *tast.PatternInExpr:
		return c.in(n)
	case *tast.BetweenExpr:
		x, lo, hi, err := c.three(n.Expr, n.Left, n.Right)
		return &ast.Between{P: c.pos(n), X: x, Lo: lo, Hi: hi, Not: n.Not}, err
	case *tast.IsNullExpr:
		x, err := c.expr(n.Expr)
		return &ast.IsNull{P: c.pos(n), X: x, Not: n.Not}, err
	case *tast.CaseExpr:
		return c.caseExpr(n)
	}
	return nil, c.fail(n, sqlerr.Syntax, "unsupported expression")
}

// exprs converts a list of expressions.
func (c *converter) exprs(ns []tast.ExprNode) ([]ast.Expr, error) {
	out := make([]ast.Expr, 0, len(ns))
	for _, n := range ns {
		e, err := c.expr(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (c *converter) three(a, b, d tast.ExprNode) (ast.Expr, ast.Expr, ast.Expr, error) {
	es, err := c.exprs([]tast.ExprNode{a, b, d})
	if err != nil {
		return nil, nil, nil, err
	}
	return es[0], es[1], es[2], nil
}

// literal takes the value from the user's token, so strings, decimals and
// big numbers are exactly as written.
func (c *converter) literal(n tast.ValueExpr) (ast.Expr, error) {
	t := c.tok(n)
	lit, ok, err := c.p.literalOf(t)
	if err != nil || ok {
		return lit, err
	}
	return nil, c.fail(n, sqlerr.Syntax, "unsupported literal")
}

// binaryOp maps a TiDB operator to ours.
func binaryOp(op opcode.Op) (ast.BinaryOp, bool) {
	switch op {
	case opcode.Plus:
		return ast.OpAdd, true
	case opcode.Minus:
		return ast.OpSub, true
	case opcode.Mul:
		return ast.OpMul, true
	case opcode.Div:
		return ast.OpDiv, true
	case opcode.Mod:
		return ast.OpMod, true
	case opcode.EQ:
		return ast.OpEQ, true
	case opcode.NE:
		return ast.OpNE, true
	case opcode.LT:
		return ast.OpLT, true
	case opcode.LE:
		return ast.OpLE, true
	case opcode.GT:
		return ast.OpGT, true
	case opcode.GE:
		return ast.OpGE, true
	case opcode.LogicAnd:
		return ast.OpAnd, true
	case opcode.LogicOr:
		return ast.OpOr, true
	case opcode.NullEQ:
		return ast.OpIsNotDistinctFrom, true
	}
	return 0, false
}

func (c *converter) binary(n *tast.BinaryOperationExpr) (ast.Expr, error) {
	op, ok := binaryOp(n.Op)
	if !ok {
		return nil, c.fail(n, sqlerr.Syntax, "unsupported operator %s", n.Op)
	}
	l, err := c.left(n.L)
	if err != nil {
		return nil, err
	}
	r, err := c.expr(n.R)
	if err != nil {
		return nil, err
	}
	if op == ast.OpIsNotDistinctFrom && c.distinct[leftmost(r)] {
		op = ast.OpIsDistinctFrom
	}
	return &ast.Binary{P: c.pos(n), Op: op, L: l, R: r}, nil
}

// left converts the left operand of a binary operator at the operator's
// own level of nesting, so a left-associative chain (1+1+…) counts as
// one level; it counts one link against sqlerr.MaxChain instead, which
// bounds the recursion such chains take.
func (c *converter) left(n tast.ExprNode) (ast.Expr, error) {
	if c.chain >= sqlerr.MaxChain {
		e := sqlerr.TooLong(c.pos(n))
		e.Near, e.SQL = c.tok(n).Raw, c.p.s.src
		return nil, e
	}
	c.chain++
	c.depth--
	defer func() { c.chain--; c.depth++ }()
	return c.expr(n)
}

// leftmost returns the first operand of e in text order.
func leftmost(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.Binary:
			e = x.L
		case *ast.Unary:
			e = x.X
		case *ast.Like:
			e = x.X
		case *ast.In:
			e = x.X
		case *ast.Between:
			e = x.X
		case *ast.IsNull:
			e = x.X
		default:
			return e
		}
	}
}

func (c *converter) unary(n *tast.UnaryOperationExpr) (ast.Expr, error) {
	x, err := c.expr(n.V)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case opcode.Not, opcode.Not2:
		return not(c.pos(n), x), nil
	case opcode.Plus:
		return &ast.Unary{P: c.pos(n), Op: ast.OpPlus, X: x}, nil
	case opcode.Minus:
		if lit, ok := x.(*ast.Literal); ok && lit.Type.Kind.IsNumeric() {
			return negate(lit, c.pos(n)), nil
		}
		return &ast.Unary{P: c.pos(n), Op: ast.OpNeg, X: x}, nil
	}
	return nil, c.fail(n, sqlerr.Syntax, "unsupported operator %s", n.Op)
}

func (c *converter) like(n *tast.PatternLikeOrIlikeExpr) (ast.Expr, error) {
	if !n.IsLike {
		return nil, c.fail(n, sqlerr.Syntax, "ILIKE is not supported")
	}
	x, err := c.expr(n.Expr)
	if err != nil {
		return nil, err
	}
	pat, err := c.expr(n.Pattern)
	if err != nil {
		return nil, err
	}
	l := &ast.Like{P: c.pos(n), X: x, Pattern: pat, Not: n.Not}
	if esc := c.escapeLiteral(n.Pattern); n.EscapeExplicit && esc != nil {
		l.Escape = esc
	}
	return l, nil
}

// escapeLiteral returns the string after the ESCAPE that follows the
// pattern, taken from the user's tokens (TiDB keeps only one byte).
func (c *converter) escapeLiteral(pattern tast.Node) *ast.Literal {
	toks := c.p.toks
	for i := c.w.tokenAt(pattern.OriginTextPosition()); i+1 < len(toks); i++ {
		if toks[i].is("ESCAPE") && toks[i+1].Kind == tString {
			t := toks[i+1]
			return &ast.Literal{P: t.P, Value: t.Val, Type: types.StringType}
		}
	}
	return nil
}

func (c *converter) in(n *tast.PatternInExpr) (ast.Expr, error) {
	if n.Sel != nil {
		return nil, c.fail(n, sqlerr.Unsupported, "subqueries are not supported")
	}
	x, err := c.expr(n.Expr)
	if err != nil {
		return nil, err
	}
	list, err := c.exprs(n.List)
	return &ast.In{P: c.pos(n), X: x, List: list, Not: n.Not}, err
}

func (c *converter) caseExpr(n *tast.CaseExpr) (ast.Expr, error) {
	ce := &ast.Case{P: c.pos(n)}
	var err error
	if n.Value != nil {
		if ce.Operand, err = c.expr(n.Value); err != nil {
			return nil, err
		}
	}
	for _, w := range n.WhenClauses {
		cond, err := c.expr(w.Expr)
		if err != nil {
			return nil, err
		}
		res, err := c.expr(w.Result)
		if err != nil {
			return nil, err
		}
		ce.Whens = append(ce.Whens, ast.When{Cond: cond, Result: res})
	}
	if n.ElseClause != nil {
		ce.Else, err = c.expr(n.ElseClause)
	}
	return ce, err
}

// not returns NOT x, folding it into x when x is a LIKE, IN or BETWEEN
// that is not negated yet: NOT (a LIKE b) is a NOT LIKE b, the form
// FormatExpr writes back.
func not(p ast.Pos, x ast.Expr) ast.Expr {
	switch x := x.(type) {
	case *ast.Like:
		if !x.Not {
			x.Not = true
			return x
		}
	case *ast.In:
		if !x.Not {
			x.Not = true
			return x
		}
	case *ast.Between:
		if !x.Not {
			x.Not = true
			return x
		}
	}
	return &ast.Unary{P: p, Op: ast.OpNot, X: x}
}
