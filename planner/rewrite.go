package planner

import "github.com/sqlstream/sqlstream/sql/ast"

// replace returns e with every sub-expression for which fn returns a
// replacement swapped for it; fn sees a node before its children, and a
// replaced node's children are not visited. The input tree is never
// modified: changed paths are copied.
func replace(e ast.Expr, fn func(ast.Expr) (ast.Expr, bool)) ast.Expr {
	if e == nil {
		return nil
	}
	if r, ok := fn(e); ok {
		return r
	}
	sub := func(x ast.Expr) ast.Expr { return replace(x, fn) }
	subs := func(xs []ast.Expr) []ast.Expr {
		out := make([]ast.Expr, len(xs))
		for i, x := range xs {
			out[i] = sub(x)
		}
		return out
	}
	switch e := e.(type) {
	case *ast.Dereference:
		c := *e
		c.Base = sub(e.Base)
		return &c
	case *ast.Subscript:
		c := *e
		c.Base, c.Index = sub(e.Base), sub(e.Index)
		return &c
	case *ast.Binary:
		c := *e
		c.L, c.R = sub(e.L), sub(e.R)
		return &c
	case *ast.Unary:
		c := *e
		c.X = sub(e.X)
		return &c
	case *ast.Like:
		c := *e
		c.X, c.Pattern, c.Escape = sub(e.X), sub(e.Pattern), sub(e.Escape)
		return &c
	case *ast.In:
		c := *e
		c.X, c.List = sub(e.X), subs(e.List)
		return &c
	case *ast.Between:
		c := *e
		c.X, c.Lo, c.Hi = sub(e.X), sub(e.Lo), sub(e.Hi)
		return &c
	case *ast.IsNull:
		c := *e
		c.X = sub(e.X)
		return &c
	case *ast.Cast:
		c := *e
		c.X = sub(e.X)
		return &c
	case *ast.Call:
		c := *e
		c.Args = subs(e.Args)
		return &c
	}
	return replaceMore(e, sub, subs)
}

func replaceMore(e ast.Expr, sub func(ast.Expr) ast.Expr, subs func([]ast.Expr) []ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.Case:
		c := *e
		c.Operand, c.Else = sub(e.Operand), sub(e.Else)
		c.Whens = make([]ast.When, len(e.Whens))
		for i, w := range e.Whens {
			c.Whens[i] = ast.When{Cond: sub(w.Cond), Result: sub(w.Result)}
		}
		return &c
	case *ast.Lambda:
		c := *e
		c.Body = sub(e.Body)
		return &c
	case *ast.ArrayCtor:
		c := *e
		c.Elems = subs(e.Elems)
		return &c
	case *ast.MapCtor:
		c := *e
		c.Keys, c.Values = subs(e.Keys), subs(e.Values)
		return &c
	case *ast.StructCtor:
		c := *e
		c.Values = subs(e.Values)
		return &c
	case *ast.AtTimeZone:
		c := *e
		c.X = sub(e.X)
		return &c
	}
	return e // leaves: Literal, ColumnRef
}
