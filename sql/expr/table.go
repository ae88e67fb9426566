package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// CompiledTable is a compiled table function call (EXPLODE(arr)): each
// evaluation yields the values of zero or more output rows.
type CompiledTable struct {
	typ  *types.Type
	args []evalFn
	fn   func([]any) ([]any, error)
	cols []int // the input columns the arguments read (Columns)
}

// CompileTable compiles a call of a table function in scope.
func CompileTable(call *ast.Call, scope Scope, reg *functions.Registry) (_ *CompiledTable, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = sqlerr.New(sqlerr.Unsupported, call.Position(), "internal error compiling %s: %v", describe(call), r)
		}
	}()
	if k, ok := reg.Kind(call.Name); ok && k != functions.Table {
		return nil, errAt(sqlerr.Semantic, call, "'%s' is not a table function", call.Name)
	}
	c := &compiler{scope: scope, reg: reg}
	args, err := c.compileAll(call.Args)
	if err != nil {
		return nil, err
	}
	argTypes := make([]*types.Type, len(args))
	for i, a := range args {
		argTypes[i] = a.typ
	}
	res, err := reg.ResolveTable(call.Name, argTypes)
	if err != nil {
		return nil, callError(call, err)
	}
	for i, a := range args {
		if p := res.Params[i]; p.Kind != types.KindUnknown && !a.typ.Equal(p) {
			if args[i], err = castNode(a, p); err != nil {
				return nil, errAt(sqlerr.Type, call.Args[i], "cannot convert %s to %s for function %s", typeName(a.typ), p, call.Name)
			}
		}
	}
	return &CompiledTable{typ: res.Return, args: evalsOf(args), fn: res.Fn, cols: c.columns()}, nil
}

// Columns returns the indexes of the columns the call's arguments read,
// ascending, each once (Compiled.Columns).
func (t *CompiledTable) Columns() []int { return t.cols }

// Type is the type of each produced value.
func (t *CompiledTable) Type() *types.Type { return t.typ }

// Eval returns the values of the output rows for row; a NULL argument
// yields no rows.
func (t *CompiledTable) Eval(row *types.Row) (out []any, err error) {
	defer recoverEval(&err)
	vals, err := evalAll(t.args, row, nil)
	if err != nil {
		return nil, err
	}
	for _, v := range vals {
		if v == nil {
			return nil, nil
		}
	}
	return t.fn(vals)
}
