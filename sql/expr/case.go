package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// caseExpr compiles CASE. Branches are evaluated lazily; the result type
// is the common type of all THEN and ELSE results; a missing ELSE is NULL.
func (c *compiler) caseExpr(e *ast.Case) (*node, error) {
	conds, err := c.caseConditions(e)
	if err != nil {
		return nil, err
	}
	results, t, err := c.caseResults(e)
	if err != nil {
		return nil, err
	}
	var elseEval evalFn
	if len(results) > len(conds) {
		elseEval = results[len(conds)].eval
	}
	thens := make([]evalFn, len(conds))
	for i := range conds {
		thens[i] = results[i].eval
	}
	return &node{typ: t, eval: func(row *types.Row, env *evalEnv) (any, error) {
		for i, cond := range conds {
			v, err := cond(row, env)
			if err != nil {
				return nil, err
			}
			if v == true {
				return thens[i](row, env)
			}
		}
		if elseEval == nil {
			return nil, nil
		}
		return elseEval(row, env)
	}}, nil
}

// caseConditions compiles the WHEN conditions; for a simple CASE each is
// operand = value.
func (c *compiler) caseConditions(e *ast.Case) ([]evalFn, error) {
	out := make([]evalFn, len(e.Whens))
	for i, w := range e.Whens {
		cond := w.Cond
		if e.Operand != nil {
			cond = &ast.Binary{P: w.Cond.Position(), Op: ast.OpEQ, L: e.Operand, R: w.Cond}
		}
		n, err := c.compile(cond)
		if err != nil {
			return nil, err
		}
		if n.typ.Kind != types.KindBoolean {
			return nil, errAt(sqlerr.Type, w.Cond, "WHEN operand type should be boolean. Type for '%s' is %s", describe(w.Cond), typeName(n.typ))
		}
		out[i] = n.eval
	}
	return out, nil
}

// caseResults compiles THEN results (and ELSE last, when present),
// converted to their common type.
func (c *compiler) caseResults(e *ast.Case) ([]*node, *types.Type, error) {
	exprs := make([]ast.Expr, 0, len(e.Whens)+1)
	for _, w := range e.Whens {
		exprs = append(exprs, w.Result)
	}
	if e.Else != nil {
		exprs = append(exprs, e.Else)
	}
	ns, err := c.compileAll(exprs)
	if err != nil {
		return nil, nil, err
	}
	t := types.UnknownType
	for i, n := range ns {
		common, ok := functions.CommonType(t, n.typ)
		if !ok {
			return nil, nil, errAt(sqlerr.Type, exprs[i], "Invalid Case expression. Type for all 'THEN' clauses should be the same. Result expression %s is of type %s while expected type is %s", describe(exprs[i]), typeName(n.typ), t)
		}
		t = common
	}
	if t.Kind == types.KindUnknown {
		return nil, nil, errAt(sqlerr.Type, e, "Invalid Case expression. All case branches have NULL type")
	}
	for i, n := range ns {
		if ns[i], err = castNode(n, t); err != nil {
			return nil, nil, errAt(sqlerr.Type, exprs[i], "%s", err.Error())
		}
	}
	return ns, t, nil
}
