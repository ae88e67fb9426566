package expr

import "github.com/sqlstream/sqlstream/sql/ast"

// ScopeFunc adapts a function to the Scope interface (join scopes,
// scopes over an aggregation's output).
type ScopeFunc func(source, name string) (Ref, error)

// Resolve calls f.
func (f ScopeFunc) Resolve(source, name string) (Ref, error) { return f(source, name) }

var _ Scope = ScopeFunc(nil)

// Walk calls visit for e and, while visit returns true, for each of its
// sub-expressions in source order.
func Walk(e ast.Expr, visit func(ast.Expr) bool) {
	if e == nil || !visit(e) {
		return
	}
	for _, c := range children(e) {
		Walk(c, visit)
	}
}

// children returns the direct sub-expressions of e.
func children(e ast.Expr) []ast.Expr {
	switch e := e.(type) {
	case *ast.Dereference:
		return []ast.Expr{e.Base}
	case *ast.Subscript:
		return []ast.Expr{e.Base, e.Index}
	case *ast.Binary:
		return []ast.Expr{e.L, e.R}
	case *ast.Unary:
		return []ast.Expr{e.X}
	case *ast.Like:
		return []ast.Expr{e.X, e.Pattern, e.Escape}
	case *ast.In:
		return append([]ast.Expr{e.X}, e.List...)
	case *ast.Between:
		return []ast.Expr{e.X, e.Lo, e.Hi}
	case *ast.IsNull:
		return []ast.Expr{e.X}
	case *ast.Cast:
		return []ast.Expr{e.X}
	case *ast.Call:
		return e.Args
	case *ast.Lambda:
		return []ast.Expr{e.Body}
	}
	return moreChildren(e)
}

func moreChildren(e ast.Expr) []ast.Expr {
	switch e := e.(type) {
	case *ast.Case:
		out := []ast.Expr{e.Operand}
		for _, w := range e.Whens {
			out = append(out, w.Cond, w.Result)
		}
		return append(out, e.Else)
	case *ast.ArrayCtor:
		return e.Elems
	case *ast.MapCtor:
		out := make([]ast.Expr, 0, 2*len(e.Keys))
		for i := range e.Keys {
			out = append(out, e.Keys[i], e.Values[i])
		}
		return out
	case *ast.StructCtor:
		return e.Values
	case *ast.AtTimeZone:
		return []ast.Expr{e.X}
	}
	return nil
}

// ColumnRefs returns the column references in e, in source order,
// excluding lambda parameters.
func ColumnRefs(e ast.Expr) []*ast.ColumnRef {
	var out []*ast.ColumnRef
	var walk func(e ast.Expr, params map[string]bool)
	walk = func(e ast.Expr, params map[string]bool) {
		Walk(e, func(x ast.Expr) bool {
			switch x := x.(type) {
			case *ast.ColumnRef:
				if x.Source != "" || !params[x.Name] {
					out = append(out, x)
				}
			case *ast.Lambda:
				inner := map[string]bool{}
				for k := range params {
					inner[k] = true
				}
				for _, p := range x.Params {
					inner[p] = true
				}
				walk(x.Body, inner)
				return false
			}
			return true
		})
	}
	walk(e, map[string]bool{})
	return out
}
