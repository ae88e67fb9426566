package expr

import "github.com/sqlstream/sqlstream/sql/ast"

// ScopeFunc adapts a function to the Scope interface (join scopes,
// scopes over an aggregation's output).
type ScopeFunc func(source, name string) (Ref, error)

// Resolve calls f.
func (f ScopeFunc) Resolve(source, name string) (Ref, error) { return f(source, name) }

var _ Scope = ScopeFunc(nil)

// ColumnRefs returns the column references in e, in source order,
// excluding lambda parameters.
func ColumnRefs(e ast.Expr) []*ast.ColumnRef {
	var out []*ast.ColumnRef
	var walk func(e ast.Expr, params map[string]bool)
	walk = func(e ast.Expr, params map[string]bool) {
		ast.Walk(e, func(x ast.Expr) bool {
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
