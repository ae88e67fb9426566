package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// in compiles X [NOT] IN (list). Constant list entries are converted to
// X's type at compile time ('10' matches a BIGINT); other entries must be
// comparable with X. NULL entries never match; a NULL X gives NULL.
func (c *compiler) in(e *ast.In) (*node, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	if x.typ.Kind == types.KindUnknown {
		return nil, errAt(sqlerr.Type, e.X, "Invalid Predicate: can't infer the type of NULL in IN")
	}
	cmps := make([]cmpFn, 0, len(e.List))
	for _, item := range e.List {
		cmp, err := c.inItem(e, x, item)
		if err != nil {
			return nil, err
		}
		if cmp != nil {
			cmps = append(cmps, cmp)
		}
	}
	xe, not := x.eval, e.Not
	n := &node{typ: types.BooleanType, eval: func(row *types.Row, vars []any) (any, error) {
		if v, err := xe(row, vars); v == nil || err != nil {
			return nil, err
		}
		for _, cmp := range cmps {
			c, ok, err := cmp(row, vars)
			if err != nil {
				return nil, err
			}
			if ok && c == 0 {
				return !not, nil
			}
		}
		return not, nil
	}}
	return n, nil
}

// inItem returns the equality comparison of x with one list entry, or nil
// for a NULL entry.
func (c *compiler) inItem(e *ast.In, x *node, item ast.Expr) (cmpFn, error) {
	n, err := c.compile(item)
	if err != nil {
		return nil, err
	}
	if n.isConst && n.value == nil {
		return nil, nil
	}
	if n.isConst && !n.typ.Equal(x.typ) && !(n.typ.Kind.IsNumeric() && x.typ.Kind.IsNumeric()) {
		v, err := Coerce(n.value, n.typ, x.typ)
		if err != nil {
			return nil, errAt(sqlerr.Type, item, "Invalid Predicate: invalid input syntax for type %s: %s", x.typ, quoteValue(n.value))
		}
		n = constNode(v, x.typ)
	}
	cmp, err := c.comparator(&ast.Binary{P: e.P, Op: ast.OpEQ, L: e.X, R: item}, ast.OpEQ, x, n)
	if err != nil {
		return nil, errAt(sqlerr.Type, item, "Invalid Predicate: operator does not exist: %s = %s (%s)", typeName(x.typ), typeName(n.typ), describe(item))
	}
	return cmp, nil
}

// quoteValue renders a constant for messages: strings in double quotes.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return `"` + s + `"`
	}
	return JavaString(v)
}

// between compiles X [NOT] BETWEEN lo AND hi; a NULL operand gives FALSE
// (like the comparisons it stands for).
func (c *compiler) between(e *ast.Between) (*node, error) {
	ns, err := c.compileAll([]ast.Expr{e.X, e.Lo, e.Hi})
	if err != nil {
		return nil, err
	}
	x, lo, hi := ns[0], ns[1], ns[2]
	geLo, err := c.comparator(&ast.Binary{P: e.P, Op: ast.OpGE, L: e.X, R: e.Lo}, ast.OpGE, x, lo)
	if err != nil {
		return nil, err
	}
	leHi, err := c.comparator(&ast.Binary{P: e.P, Op: ast.OpLE, L: e.X, R: e.Hi}, ast.OpLE, x, hi)
	if err != nil {
		return nil, err
	}
	not := e.Not
	n := &node{typ: types.BooleanType, eval: func(row *types.Row, vars []any) (any, error) {
		a, ok1, err := geLo(row, vars)
		if err != nil {
			return nil, err
		}
		b, ok2, err := leHi(row, vars)
		if err != nil || !ok1 || !ok2 {
			return false, err
		}
		inside := (a == 0 || a == 1) && b <= 0
		return inside != not, nil
	}}
	return fold(n, x, lo, hi), nil
}
