package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// emptyScope resolves no columns: constant expressions may not reference
// any.
type emptyScope struct{}

func (emptyScope) Resolve(source, name string) (Ref, error) {
	return Ref{}, sqlerr.New(sqlerr.Semantic, ast.Pos{}, "column '%s' is not allowed here: only constant expressions are", name)
}

// Constant evaluates an expression that references no columns (INSERT …
// VALUES, property values) and returns its value and type.
func Constant(e ast.Expr, reg *functions.Registry) (any, *types.Type, error) {
	c, err := Compile(e, emptyScope{}, reg)
	if err != nil {
		return nil, nil, err
	}
	v, err := c.Eval(&types.Row{})
	if err != nil {
		return nil, nil, errAt(sqlerr.Semantic, e, "%s", err.Error())
	}
	return v, c.Type(), nil
}
