package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// in compiles X [NOT] IN (list). X and the list are converted to a common
// type (constants follow the literal rules, so '10' matches a BIGINT).
// NULL entries never match; a NULL X matches nothing (so NOT IN is TRUE,
// as ksqlDB negates the match).
func (c *compiler) in(e *ast.In) (*node, error) {
	exprs := append([]ast.Expr{e.X}, e.List...)
	ns, err := c.compileAll(exprs)
	if err != nil {
		return nil, err
	}
	if ns[0].typ.Kind == types.KindUnknown {
		return nil, errAt(sqlerr.Type, e.X, "Invalid Predicate: can't infer the type of NULL in IN")
	}
	orig := ns
	ns, _, err = unifyList(ns, func(i int, want *types.Type, err error) error {
		if err != nil {
			return errAt(sqlerr.Type, exprs[i], "Invalid Predicate: %s", err.Error())
		}
		return errAt(sqlerr.Type, exprs[i], "Invalid Predicate: operator does not exist: %s = %s (%s)",
			typeName(orig[0].typ), typeName(orig[i].typ), describe(exprs[i]))
	})
	if err != nil {
		return nil, err
	}
	cmps, err := c.inComparators(e, ns)
	if err != nil {
		return nil, err
	}
	return inNode(ns[0], cmps, newInSet(ns), e.Not), nil
}

func (c *compiler) inComparators(e *ast.In, ns []*node) ([]cmpFn, error) {
	var cmps []cmpFn
	for i, n := range ns[1:] {
		if n.isConst && n.value == nil {
			continue
		}
		b := &ast.Binary{P: e.P, Op: ast.OpEQ, L: e.X, R: e.List[i]}
		cmp, err := c.comparator(b, ast.OpEQ, ns[0], n)
		if err != nil {
			return nil, err
		}
		cmps = append(cmps, cmp)
	}
	return cmps, nil
}

func inNode(x *node, cmps []cmpFn, set *inSet, not bool) *node {
	xe := x.eval
	return &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, err := xe(row, env)
		if v == nil || err != nil {
			// ksqlDB: a NULL never matches, and NOT IN negates that.
			return not && err == nil, err
		}
		if set != nil {
			if in, ok := set.match(v); ok {
				return in != not, nil
			}
		}
		for _, cmp := range cmps {
			c, ok, err := cmp(row, env)
			if err != nil {
				return nil, err
			}
			if ok && c == 0 {
				return !not, nil
			}
		}
		return not, nil
	}}
}

// quoteValue renders a constant for messages: strings in double quotes.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return `"` + s + `"`
	}
	return JavaString(v)
}

// between compiles X [NOT] BETWEEN lo AND hi; with a NULL operand the
// comparisons it stands for are FALSE, so BETWEEN is FALSE and NOT BETWEEN
// TRUE.
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
	n := &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		a, ok1, err := geLo(row, env)
		if err != nil {
			return nil, err
		}
		b, ok2, err := leHi(row, env)
		if err != nil {
			return nil, err
		}
		if !ok1 || !ok2 {
			return not, nil // comparisons with NULL are FALSE
		}
		inside := (a == 0 || a == 1) && b <= 0
		return inside != not, nil
	}}
	return fold(n, x, lo, hi), nil
}
