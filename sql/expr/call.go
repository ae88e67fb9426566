package expr

import (
	"errors"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// call compiles a scalar function call: overload resolution, implicit
// conversion of the arguments, NULL short-circuit unless the function is
// NULL-aware, and constant folding of deterministic calls.
func (c *compiler) call(e *ast.Call) (*node, error) {
	if err := c.checkScalar(e); err != nil {
		return nil, err
	}
	args, argTypes, err := c.callArgs(e)
	if err != nil {
		return nil, err
	}
	lambdas := map[int]*node{}
	typer := func(i int, params []*types.Type) (*types.Type, error) {
		n, err := c.lambda(e.Args[i].(*ast.Lambda), params)
		if err != nil {
			return nil, err
		}
		lambdas[i] = n
		return n.typ, nil
	}
	res, err := c.reg.ResolveArgs(e.Name, callArgInfo(args, argTypes), typer)
	if err != nil {
		return nil, callError(e, err)
	}
	if err := c.bindArgs(e, res, args); err != nil {
		return nil, err
	}
	if err := checkPatterns(e, res, args); err != nil {
		return nil, err
	}
	n := callNode(res, args)
	if f := c.lenOfReplaceNode(res, args); f != nil {
		if c.share != nil {
			c.share.retract(args[0])
		}
		n = f
	}
	if c.reg.IsVolatile(e.Name) {
		if c.share != nil {
			c.share.volatile++
		}
		return n, nil
	}
	return fold(n, args...), nil
}

// lenOfReplaceNode is LEN(REPLACE(s, old, repl)) on strings as a count,
// without the replaced string (functions.ReplacedLen: q14 counts an
// extra's c's as its LEN less the LEN of it with the c's replaced by the
// empty string, a string built per row only to be measured), or nil when the call is not that. It evaluates s, old and repl in
// the order and with the NULL rules of the two calls, and REPLACE's
// result cap fails as the call does: NULL, and the error reported as
// REPLACE's. A constant REPLACE is left to folding.
func (c *compiler) lenOfReplaceNode(res *functions.Resolved, args []*node) *node {
	if res.Name != "LEN" || len(args) != 1 || args[0].call == nil || args[0].call.name != "REPLACE" || args[0].isConst ||
		len(args[0].call.args) != 3 || args[0].typ.Kind != types.KindString {
		return nil
	}
	ra := args[0].call.args
	for _, a := range ra {
		if a.typ.Kind != types.KindString {
			return nil
		}
	}
	evals, reg := [3]evalFn{ra[0].eval, ra[1].eval, ra[2].eval}, c.reg
	return &node{typ: res.Return, eval: func(row *types.Row, env *evalEnv) (any, error) {
		var v [3]string
		for i, ev := range evals {
			x, err := ev(row, env)
			if x == nil || err != nil {
				return nil, err
			}
			v[i] = x.(string)
		}
		if err := reg.CheckResult("REPLACE", functions.ReplaceSize(v[0], v[1], v[2])); err != nil {
			env.report(&FunctionError{Name: "REPLACE", Err: err})
			return nil, nil
		}
		return functions.ReplacedLen(v[0], v[1], v[2]), nil
	}}
}

// checkPatterns compiles the constant regular-expression arguments of a
// call, so that an invalid pattern fails the statement at its position.
func checkPatterns(e *ast.Call, res *functions.Resolved, args []*node) error {
	for _, i := range res.Patterns {
		if i >= len(args) || args[i] == nil || !args[i].isConst {
			continue
		}
		p, ok := args[i].value.(string)
		if !ok {
			continue
		}
		if err := functions.CheckPattern(p); err != nil {
			return errAt(sqlerr.Semantic, e.Args[i], "%s: %v", e.Name, err)
		}
	}
	return nil
}

func (c *compiler) checkScalar(e *ast.Call) error {
	kind, ok := c.reg.Kind(e.Name)
	switch {
	case !ok:
		return errAt(sqlerr.Unknown, e, "Can't find any functions with the name '%s'", e.Name)
	case kind == functions.Aggregate:
		return errAt(sqlerr.Semantic, e, "Aggregate function '%s' is not allowed in this context", e.Name)
	case kind == functions.Table:
		return errAt(sqlerr.Semantic, e, "Table function '%s' is not allowed in this context", e.Name)
	case e.Star || e.Distinct:
		return errAt(sqlerr.Semantic, e, "'%s' is not an aggregate function; * and DISTINCT are not allowed", e.Name)
	}
	return nil
}

// callArgs compiles the non-lambda arguments; lambdas get a nil node and
// a nil type until overload resolution types them.
func (c *compiler) callArgs(e *ast.Call) ([]*node, []*types.Type, error) {
	args := make([]*node, len(e.Args))
	argTypes := make([]*types.Type, len(e.Args))
	for i, a := range e.Args {
		if _, ok := a.(*ast.Lambda); ok {
			continue
		}
		if unit, ok := timeUnitArg(e, i); ok {
			args[i], argTypes[i] = constNode(unit, types.StringType), types.StringType
			continue
		}
		n, err := c.compile(a)
		if err != nil {
			return nil, nil, err
		}
		args[i], argTypes[i] = n, n.typ
	}
	return args, argTypes, nil
}

func callError(e *ast.Call, err error) error {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return se
	}
	var unknown *functions.UnknownFunctionError
	if errors.As(err, &unknown) {
		return errAt(sqlerr.Unknown, e, "%s", err.Error())
	}
	return errAt(sqlerr.Type, e, "%s", err.Error())
}

// bindArgs converts each argument to its parameter type and compiles the
// lambdas with their resolved parameter types.
func (c *compiler) bindArgs(e *ast.Call, res *functions.Resolved, args []*node) error {
	for i, a := range args {
		if a == nil {
			n, err := c.lambda(e.Args[i].(*ast.Lambda), res.LambdaParams[i])
			if err != nil {
				return err
			}
			if args[i], err = c.lambdaValue(e.Args[i], n, res.Params[i]); err != nil {
				return err
			}
			continue
		}
		p := res.Params[i]
		if p.Kind == types.KindUnknown || a.typ.Equal(p) {
			continue
		}
		n, err := castNode(a, p)
		if err != nil {
			return errAt(sqlerr.Type, e.Args[i], "cannot convert %s to %s for function %s", typeName(a.typ), p, e.Name)
		}
		args[i] = n
	}
	return nil
}

func callNode(res *functions.Resolved, args []*node) *node {
	evals := make([]evalFn, len(args))
	for i, a := range args {
		evals[i] = a.eval
	}
	fn, nullAware, name := res.Fn, res.NullAware, res.Name
	return &node{typ: res.Return, call: &callInfo{name: name, args: args}, eval: func(row *types.Row, env *evalEnv) (any, error) {
		vals := make([]any, len(evals))
		for i, ev := range evals {
			v, err := ev(row, env)
			if err != nil {
				return nil, err
			}
			if v == nil && !nullAware {
				return nil, nil
			}
			vals[i] = v
		}
		out, err := fn(vals)
		if err != nil {
			// As in ksqlDB, a failing function yields NULL for this call
			// and the error is logged; the expression goes on.
			env.report(&FunctionError{Name: name, Err: err})
			return nil, nil
		}
		return out, nil
	}}
}

// lambda type-checks a lambda body with its parameters bound to params.
func (c *compiler) lambda(l *ast.Lambda, params []*types.Type) (*node, error) {
	if len(l.Params) != len(params) {
		return nil, errAt(sqlerr.Type, l, "lambda has %d parameters, the function passes %d", len(l.Params), len(params))
	}
	saved := c.lambdaVars
	defer func() { c.lambdaVars = saved }()
	vars := append([]lambdaVar{}, saved...)
	for i, name := range l.Params {
		vars = append(vars, lambdaVar{name: name, typ: params[i]})
	}
	c.lambdaVars = vars
	return c.compile(l.Body)
}

// lambdaValue turns a compiled lambda body into a node producing a
// functions.Lambda bound to the current row and enclosing lambda
// variables; the body's result is converted to want.
func (c *compiler) lambdaValue(e ast.Expr, body *node, want *types.Type) (*node, error) {
	if want != nil && want.Kind != types.KindUnknown && !body.typ.Equal(want) {
		b, err := castNode(body, want)
		if err != nil {
			return nil, errAt(sqlerr.Type, e, "lambda returns %s where %s is expected", typeName(body.typ), want)
		}
		body = b
	}
	be := body.eval
	return &node{typ: body.typ, eval: func(row *types.Row, env *evalEnv) (any, error) {
		return functions.Lambda(func(args ...any) (any, error) {
			return be(row, env.withVars(args))
		}), nil
	}}, nil
}

// timeUnitArg recognizes the time unit keyword that DATEADD, TIMESTAMPSUB
// and friends take as their first argument (DAYS, not 'DAYS'); it is passed
// to the function as a string.
func timeUnitArg(e *ast.Call, i int) (string, bool) {
	if i != 0 {
		return "", false
	}
	switch e.Name {
	case "DATEADD", "DATESUB", "TIMESTAMPADD", "TIMESTAMPSUB", "TIMEADD", "TIMESUB":
	default:
		return "", false
	}
	ref, ok := e.Args[0].(*ast.ColumnRef)
	if !ok || ref.Source != "" {
		return "", false
	}
	switch ref.Name {
	case "NANOSECONDS", "MICROSECONDS", "MILLISECONDS", "SECONDS", "MINUTES", "HOURS", "DAYS":
		return ref.Name, true
	}
	return "", false
}

// callArgInfo describes the arguments for overload resolution: string
// constants may convert to temporal parameters.
func callArgInfo(args []*node, argTypes []*types.Type) []functions.Arg {
	out := make([]functions.Arg, len(args))
	for i, a := range args {
		out[i] = functions.Arg{Type: argTypes[i]}
		if a != nil && a.isConst && a.typ.Kind == types.KindString {
			out[i].StringLiteral = true
		}
	}
	return out
}
