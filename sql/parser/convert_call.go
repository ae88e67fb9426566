package parser

import (
	"strings"

	tast "github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// call converts a function call: a user function, `||` (TiDB's lower-case
// concat) or one of the rewriter's internal functions.
func (c *converter) call(n *tast.FuncCallExpr) (ast.Expr, error) {
	name := n.FnName.O
	if !strings.HasPrefix(name, "__ksql_") && name != "concat" {
		args, err := c.exprs(n.Args)
		return &ast.Call{P: c.pos(n), Name: name, Args: args}, err
	}
	if name == "concat" {
		return c.concat(n)
	}
	args, idx, err := c.internalArgs(name, n.Args)
	if err != nil {
		return nil, err
	}
	return c.internal(n, name, args, idx)
}

// internalArgs converts the arguments of an internal call, except the
// side-table index (first or last argument), which it returns.
func (c *converter) internalArgs(name string, ns []tast.ExprNode) ([]ast.Expr, int, error) {
	idx := -1
	switch name {
	case fnDeref, fnCast:
		idx, ns = index(ns[len(ns)-1]), ns[:len(ns)-1]
	case fnLambda, fnStarCall, fnDistinctCall:
		idx, ns = index(ns[0]), ns[1:]
	case fnDecimal, fnAtTimeZone, fnStruct:
		return nil, -1, nil
	}
	args, err := c.exprs(ns)
	return args, idx, err
}

// index reads a side-table index the rewriter emitted as a number.
func index(n tast.ExprNode) int {
	v, _ := n.(tast.ValueExpr).GetValue().(int64)
	return int(v)
}

// internal rebuilds the ksqlDB construct behind an internal call.
func (c *converter) internal(n *tast.FuncCallExpr, name string, args []ast.Expr, idx int) (ast.Expr, error) {
	p := c.pos(n)
	switch name {
	case fnDeref:
		return &ast.Dereference{P: p, Base: args[0], Field: c.w.names[idx]}, nil
	case fnSubscript:
		return &ast.Subscript{P: p, Base: args[0], Index: args[1]}, nil
	case fnCast:
		return &ast.Cast{P: p, X: args[0], To: c.w.typs[idx]}, nil
	case fnArray:
		return &ast.ArrayCtor{P: p, Elems: args}, nil
	case fnMap:
		return mapCtor(p, args), nil
	case fnStruct:
		return c.structCtor(n)
	case fnLambda:
		return &ast.Lambda{P: p, Params: c.w.params[idx], Body: args[0]}, nil
	case fnStarCall:
		return &ast.Call{P: p, Name: c.w.names[idx], Star: true}, nil
	case fnDistinctCall:
		return &ast.Call{P: p, Name: c.w.names[idx], Args: args, Distinct: true}, nil
	case fnDecimal:
		t := c.tok(n.Args[0])
		lit, err := c.p.decimalLiteral(t, t.Val)
		if lit != nil {
			lit.P = p
		}
		return lit, err
	case fnAtTimeZone:
		return c.atTimeZone(n)
	case fnIsDistinct:
		c.markDistinct(args[0])
		return args[0], nil
	}
	return nil, c.fail(n, sqlerr.Syntax, "-> * is only allowed as a select item")
}

func (c *converter) markDistinct(e ast.Expr) {
	if c.distinct == nil {
		c.distinct = map[ast.Expr]bool{}
	}
	c.distinct[e] = true
}

func mapCtor(p ast.Pos, args []ast.Expr) *ast.MapCtor {
	m := &ast.MapCtor{P: p}
	for i := 0; i+1 < len(args); i += 2 {
		m.Keys = append(m.Keys, args[i])
		m.Values = append(m.Values, args[i+1])
	}
	return m
}

// structCtor converts __ksql_struct(nameIdx, value, …).
func (c *converter) structCtor(n *tast.FuncCallExpr) (ast.Expr, error) {
	s := &ast.StructCtor{P: c.pos(n)}
	for i := 0; i+1 < len(n.Args); i += 2 {
		v, err := c.expr(n.Args[i+1])
		if err != nil {
			return nil, err
		}
		s.Names = append(s.Names, c.w.names[index(n.Args[i])])
		s.Values = append(s.Values, v)
	}
	return s, nil
}

func (c *converter) atTimeZone(n *tast.FuncCallExpr) (ast.Expr, error) {
	x, err := c.expr(n.Args[0])
	if err != nil {
		return nil, err
	}
	return &ast.AtTimeZone{P: c.pos(n), X: x, Zone: c.tok(n.Args[1]).Val}, nil
}

// concat converts TiDB's concat (from `||`) into left-nested OpConcat.
func (c *converter) concat(n *tast.FuncCallExpr) (ast.Expr, error) {
	args, err := c.exprs(n.Args)
	if err != nil {
		return nil, err
	}
	e := args[0]
	for _, a := range args[1:] {
		e = &ast.Binary{P: e.Position(), Op: ast.OpConcat, L: e, R: a}
	}
	return e, nil
}
