package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

func (c *compiler) binary(e *ast.Binary) (*node, error) {
	l, err := c.left(e.L)
	if err != nil {
		return nil, err
	}
	r, err := c.compile(e.R)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case ast.OpAnd, ast.OpOr:
		return c.logical(e, l, r)
	case ast.OpEQ, ast.OpNE, ast.OpLT, ast.OpLE, ast.OpGT, ast.OpGE:
		return c.comparison(e, l, r)
	case ast.OpIsDistinctFrom, ast.OpIsNotDistinctFrom:
		return c.distinct(e, l, r)
	}
	return c.arith(e, l, r)
}

// left compiles the left operand of a binary operator at the operator's
// own level of nesting, so a left-associative chain (1+1+…) counts as
// one level, as the parser counts it; it counts one link against
// sqlerr.MaxChain instead, which bounds the recursion.
func (c *compiler) left(e ast.Expr) (*node, error) {
	if c.chain >= sqlerr.MaxChain {
		return nil, sqlerr.TooLong(e.Position())
	}
	c.chain++
	c.depth--
	defer func() { c.chain--; c.depth++ }()
	return c.compile(e)
}

// boolOperand checks that n is BOOLEAN (or an untyped NULL).
func boolOperand(e ast.Expr, n *node, what string) error {
	if k := n.typ.Kind; k != types.KindBoolean && k != types.KindUnknown {
		return errAt(sqlerr.Type, e, "%s requires BOOLEAN operands, got %s", what, typeName(n.typ))
	}
	return nil
}

// logical is AND / OR with three-valued logic: FALSE AND NULL is FALSE,
// TRUE OR NULL is TRUE, otherwise NULL wins. The right side is evaluated
// only when the left does not decide the result.
func (c *compiler) logical(e *ast.Binary, l, r *node) (*node, error) {
	if err := boolOperand(e.L, l, e.Op.String()); err != nil {
		return nil, err
	}
	if err := boolOperand(e.R, r, e.Op.String()); err != nil {
		return nil, err
	}
	decisive := e.Op == ast.OpOr // TRUE decides OR, FALSE decides AND
	le, re := l.eval, r.eval
	n := &node{typ: types.BooleanType}
	n.eval = func(row *types.Row, env *evalEnv) (any, error) {
		a, err := le(row, env)
		if err != nil {
			return nil, err
		}
		if a == decisive {
			return decisive, nil
		}
		b, err := re(row, env)
		if err != nil || b == decisive {
			return b, err
		}
		if a == nil || b == nil {
			return nil, nil
		}
		return !decisive, nil
	}
	return fold(n, l, r), nil
}

func (c *compiler) unary(e *ast.Unary) (*node, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case ast.OpNot:
		if err := boolOperand(e.X, x, "NOT"); err != nil {
			return nil, err
		}
		return fold(notNode(x), x), nil
	case ast.OpNeg:
		return c.negate(e, x)
	}
	if !numericOrNull(x.typ) {
		return nil, errAt(sqlerr.Type, e, "unary + requires a numeric operand, got %s", typeName(x.typ))
	}
	return x, nil
}

func notNode(x *node) *node {
	xe := x.eval
	return &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, err := xe(row, env)
		if v == nil || err != nil {
			return nil, err
		}
		return !v.(bool), nil
	}}
}

func (c *compiler) negate(e *ast.Unary, x *node) (*node, error) {
	var n *node
	switch x.typ.Kind {
	case types.KindInteger, types.KindBigint:
		xi, is32 := asInt(x), x.typ.Kind == types.KindInteger
		n = intNode(x.typ, func(row *types.Row, env *evalEnv) (int64, bool, error) {
			v, ok, err := xi(row, env)
			if err != nil || !ok {
				return 0, false, nullOperand(err)
			}
			if is32 {
				return int64(-int32(v)), true, nil
			}
			return -v, true, nil
		})
	case types.KindDouble:
		xf := asFloat(x)
		n = floatNode(func(row *types.Row, env *evalEnv) (float64, bool, error) {
			v, ok, err := xf(row, env)
			if err != nil || !ok {
				return 0, false, nullOperand(err)
			}
			return -v, true, nil
		})
	case types.KindDecimal:
		xe := x.eval
		n = &node{typ: x.typ, eval: func(row *types.Row, env *evalEnv) (any, error) {
			v, err := xe(row, env)
			if v == nil || err != nil {
				return nil, nullOperand(err)
			}
			return new(apd.Decimal).Neg(v.(*apd.Decimal)), nil
		}}
	default:
		return nil, errAt(sqlerr.Type, e, "unary - requires a numeric operand, got %s", typeName(x.typ))
	}
	return fold(n, x), nil
}

// mapNode applies f to the non-NULL values of x.
func mapNode(x *node, t *types.Type, f func(any) (any, error)) *node {
	xe := x.eval
	return &node{typ: t, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, err := xe(row, env)
		if v == nil || err != nil {
			return nil, err
		}
		return f(v)
	}}
}

func (c *compiler) isNull(e *ast.IsNull) (*node, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	xe, not := x.eval, e.Not
	n := &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, err := xe(row, env)
		if err != nil {
			return nil, err
		}
		return (v == nil) != not, nil
	}}
	return fold(n, x), nil
}

// concat is string concatenation: `||` (NULL if an operand is NULL), or
// `+` with a STRING operand, which ksqlDB compiles to Java's string `+`:
// a NULL operand is appended as the text "null".
func (c *compiler) concat(e *ast.Binary, l, r *node) (*node, error) {
	for _, n := range []*node{l, r} {
		if k := n.typ.Kind; k != types.KindString && k != types.KindUnknown {
			return nil, errAt(sqlerr.Type, e, "Error processing expression: %s. Unsupported arithmetic types. %s %s",
				describe(e), typeName(l.typ), typeName(r.typ))
		}
	}
	javaPlus := e.Op == ast.OpAdd
	le, re, reg := l.eval, r.eval, c.reg
	n := &node{typ: types.StringType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		a, err := le(row, env)
		if err != nil || a == nil && !javaPlus {
			return nil, err
		}
		b, err := re(row, env)
		if err != nil || b == nil && !javaPlus {
			return nil, err
		}
		x, y := javaText(a), javaText(b)
		if err := reg.CheckResult("||", int64(len(x))+int64(len(y))); err != nil {
			return nil, err
		}
		return x + y, nil
	}}
	return fold(n, l, r), nil
}

// javaText is a string operand of Java's `+`: NULL is "null".
func javaText(v any) string {
	if v == nil {
		return "null"
	}
	return v.(string)
}
