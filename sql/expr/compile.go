package expr

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// evalFn evaluates a node against a row. env carries the values of the
// enclosing lambdas' parameters and the sink of function errors; it may
// be nil at the top level.
type evalFn func(row *types.Row, env *evalEnv) (any, error)

// evalEnv is the per-evaluation context. It is immutable: lambdas derive
// a new one with their parameters appended.
type evalEnv struct {
	vars []any
	log  func(error)
	// memo holds the row's shared subexpressions (see Share); nil
	// computes them where they occur.
	memo *Memo
}

// withVars returns an env with vals appended to the lambda parameters.
func (e *evalEnv) withVars(vals []any) *evalEnv {
	out := &evalEnv{}
	if e != nil {
		out.log, out.memo = e.log, e.memo
		out.vars = make([]any, len(e.vars), len(e.vars)+len(vals))
		copy(out.vars, e.vars)
	}
	out.vars = append(out.vars, vals...)
	return out
}

// report hands a function error to the error log, if any, and notes it
// in the memo, whose shared values report their errors again.
func (e *evalEnv) report(err error) {
	if e == nil {
		return
	}
	if e.memo != nil {
		e.memo.errs = append(e.memo.errs, err)
	}
	if e.log != nil {
		e.log(err)
	}
}

// FunctionError is a function call that failed during evaluation; the
// call's value became NULL. Compiled.WithErrorLog receives these.
type FunctionError struct {
	Name string
	Err  error
}

func (e *FunctionError) Error() string { return "Error computing " + e.Name + ": " + e.Err.Error() }

func (e *FunctionError) Unwrap() error { return e.Err }

// intFn and floatFn are unboxed fast paths of INTEGER/BIGINT and DOUBLE
// nodes; ok is false for NULL.
type (
	intFn   func(row *types.Row, env *evalEnv) (v int64, ok bool, err error)
	floatFn func(row *types.Row, env *evalEnv) (v float64, ok bool, err error)
)

// node is a type-checked, compiled expression.
type node struct {
	typ  *types.Type
	eval evalFn
	i64  intFn   // set for INTEGER and BIGINT nodes
	f64  floatFn // set for DOUBLE nodes
	// isConst marks nodes whose value does not depend on the row; value
	// is that value.
	isConst bool
	value   any
	// rowTime marks ROWTIME, WINDOWSTART and WINDOWEND, which compare with
	// timestamp strings ("magic timestamp conversion").
	rowTime bool
	// call is set for a function call's node, so that a parent can
	// evaluate it some cheaper way (SPLIT(s, d)[i], see subscript).
	call *callInfo
}

// callInfo is the function and converted arguments of a call node.
type callInfo struct {
	name string
	args []*node
}

// Compiled is an expression ready to be evaluated against rows. It is
// immutable and safe for concurrent use.
type Compiled struct {
	n   *node
	env *evalEnv // the error log, if any
	// cols are the input columns the expression reads (Columns).
	cols []int
	// src, scope and reg are what it was compiled from, for Share.
	src   ast.Expr
	scope Scope
	reg   *functions.Registry
}

// WithErrorLog returns a copy of c that reports function errors (whose
// calls evaluate to NULL, as in ksqlDB) to log, e.g. to write them to the
// processing log. log must be safe for concurrent use if c is shared.
func (c *Compiled) WithErrorLog(log func(error)) *Compiled {
	return &Compiled{n: c.n, env: &evalEnv{log: log}, cols: c.cols, src: c.src, scope: c.scope, reg: c.reg}
}

// Columns returns the indexes (in the scope's schema) of the columns the
// expression reads, ascending, each once: the planner decodes only those
// of a source.
func (c *Compiled) Columns() []int { return c.cols }

// Type returns the SQL type of the expression's values.
func (c *Compiled) Type() *types.Type { return c.n.typ }

// Eval evaluates the expression against row. A non-nil error is an
// evaluation error of the whole expression (e.g. integer division by
// zero, a failed CAST); ksqlDB then uses NULL and writes the error to the
// processing log. A failing function call only makes that call NULL (see
// WithErrorLog).
func (c *Compiled) Eval(row *types.Row) (v any, err error) {
	defer recoverEval(&err)
	return c.n.eval(row, c.env)
}

// recoverEval turns a panic during evaluation (a value that does not match
// its column's type) into an evaluation error, so one bad record cannot
// take a query down.
func recoverEval(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error evaluating expression: %v", r)
	}
}

// EvalBool evaluates a BOOLEAN expression as a filter does: only TRUE
// passes; NULL and FALSE do not.
func (c *Compiled) EvalBool(row *types.Row) (ok bool, err error) {
	defer recoverEval(&err)
	v, err := c.n.eval(row, c.env)
	b, _ := v.(bool)
	return b, err
}

// IsConstant reports whether the value does not depend on the row.
func (c *Compiled) IsConstant() bool { return c.n.isConst }

// Compile type-checks e in scope and compiles it. Errors are
// *sqlerr.Error with the position of the offending node.
func Compile(e ast.Expr, scope Scope, reg *functions.Registry) (_ *Compiled, err error) {
	defer func() {
		if r := recover(); r != nil && e != nil {
			err = sqlerr.New(sqlerr.Unsupported, e.Position(), "internal error compiling %s: %v", describe(e), r)
		}
	}()
	c := &compiler{scope: scope, reg: reg}
	n, err := c.compile(e)
	if err != nil {
		return nil, err
	}
	return &Compiled{n: n, cols: c.columns(), src: e, scope: scope, reg: reg}, nil
}

// compiler holds the context of one Compile call.
type compiler struct {
	scope Scope
	reg   *functions.Registry
	// lambdaVars are the parameters of the enclosing lambdas, outermost
	// first; a parameter's index is its position in the vars slice.
	lambdaVars []lambdaVar
	depth      int     // nesting of compile calls, at most sqlerr.MaxDepth
	chain      int     // left operands being compiled, see left
	cols       []int   // the columns read so far (column)
	share      *sharer // set when compiling a group for Share
}

// columns returns the columns read, ascending, each once.
func (c *compiler) columns() []int {
	slices.Sort(c.cols)
	return slices.Compact(c.cols)
}

type lambdaVar struct {
	name string
	typ  *types.Type
}

func (c *compiler) compile(e ast.Expr) (*node, error) {
	if c.depth >= sqlerr.MaxDepth && e != nil {
		return nil, sqlerr.TooDeep(e.Position())
	}
	c.depth++
	defer func() { c.depth-- }()
	var mark shareMark
	if c.share != nil {
		mark = c.share.begin()
	}
	n, err := c.compileNode(e)
	if err != nil {
		return nil, err
	}
	n = withFastPaths(n)
	if c.share != nil {
		n = c.share.end(c, e, mark, n)
	}
	return n, nil
}

// withFastPaths gives numeric nodes that lack them unboxed accessors
// derived from eval, so parents can use them.
func withFastPaths(n *node) *node {
	switch k := n.typ.Kind; {
	case (k == types.KindInteger || k == types.KindBigint) && n.i64 == nil:
		n.i64 = boxedInt(n.eval)
	case k == types.KindDouble && n.f64 == nil:
		ev := n.eval
		n.f64 = func(row *types.Row, env *evalEnv) (float64, bool, error) {
			v, err := ev(row, env)
			f, ok := v.(float64)
			return f, ok, err
		}
	}
	return n
}

// asInt returns the int64 accessor of an INTEGER or BIGINT node (or of
// an untyped NULL), deriving one from eval when the node has none.
func asInt(n *node) intFn {
	if n.i64 != nil {
		return n.i64
	}
	return boxedInt(n.eval)
}

func boxedInt(ev evalFn) intFn {
	return func(row *types.Row, env *evalEnv) (int64, bool, error) {
		v, err := ev(row, env)
		switch x := v.(type) {
		case int32:
			return int64(x), true, err
		case int64:
			return x, true, err
		}
		return 0, false, err
	}
}

// compileNode compiles e by its kind: one case per node kind of sql/ast.
func (c *compiler) compileNode(e ast.Expr) (*node, error) {
	switch e := e.(type) {
	case *ast.Literal:
		return c.literal(e)
	case *ast.ColumnRef:
		return c.column(e)
	case *ast.Dereference:
		return c.dereference(e)
	case *ast.Subscript:
		return c.subscript(e)
	case *ast.Binary:
		return c.binary(e)
	case *ast.Unary:
		return c.unary(e)
	case *ast.Like:
		return c.like(e)
	case *ast.In:
		return c.in(e)
	case *ast.Between:
		return c.between(e)
	case *ast.IsNull:
		return c.isNull(e)
	case *ast.Case:
		return c.caseExpr(e)
	case *ast.Cast:
		return c.cast(e)
	case *ast.Call:
		return c.call(e)
	case *ast.Lambda:
		return nil, errAt(sqlerr.Semantic, e, "a lambda is only allowed as a function argument")
	case *ast.ArrayCtor:
		return c.arrayCtor(e)
	case *ast.MapCtor:
		return c.mapCtor(e)
	case *ast.StructCtor:
		return c.structCtor(e)
	case *ast.AtTimeZone:
		return nil, errAt(sqlerr.Unsupported, e, "AT TIME ZONE is only supported inside timestamp formatting functions")
	case nil:
		return nil, sqlerr.New(sqlerr.Semantic, ast.Pos{}, "missing expression")
	}
	return nil, errAt(sqlerr.Unsupported, e, "unsupported expression %T", e)
}

// compileAll compiles a list of expressions.
func (c *compiler) compileAll(es []ast.Expr) ([]*node, error) {
	out := make([]*node, len(es))
	for i, e := range es {
		n, err := c.compile(e)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// errAt returns a *sqlerr.Error at e's position.
func errAt(code sqlerr.Code, e ast.Expr, format string, args ...any) *sqlerr.Error {
	return sqlerr.New(code, e.Position(), format, args...)
}

// wrapErr turns err into a *sqlerr.Error at e's position, keeping the code
// of an existing *sqlerr.Error and defaulting to code otherwise.
func wrapErr(code sqlerr.Code, e ast.Expr, err error) *sqlerr.Error {
	var se *sqlerr.Error
	if errors.As(err, &se) {
		out := *se
		if out.Pos.Line == 0 {
			out.Pos = e.Position()
		}
		return &out
	}
	return sqlerr.New(code, e.Position(), "%s", err.Error())
}

// constNode returns a node that always evaluates to v of type t.
func constNode(v any, t *types.Type) *node {
	n := &node{typ: t, isConst: true, value: v}
	n.eval = func(*types.Row, *evalEnv) (any, error) { return v, nil }
	switch x := v.(type) {
	case int32:
		n.i64 = func(*types.Row, *evalEnv) (int64, bool, error) { return int64(x), true, nil }
	case int64:
		n.i64 = func(*types.Row, *evalEnv) (int64, bool, error) { return x, true, nil }
	case float64:
		n.f64 = func(*types.Row, *evalEnv) (float64, bool, error) { return x, true, nil }
	case *apd.Decimal:
		// Comparisons of DOUBLE columns with DECIMAL literals convert once.
		if f, err := x.Float64(); err == nil {
			n.f64 = func(*types.Row, *evalEnv) (float64, bool, error) { return f, true, nil }
		}
	case nil:
		n.i64 = func(*types.Row, *evalEnv) (int64, bool, error) { return 0, false, nil }
		n.f64 = func(*types.Row, *evalEnv) (float64, bool, error) { return 0, false, nil }
	}
	return n
}

// fold evaluates n now when all of its inputs are constants, so that
// constant sub-expressions cost nothing per row. Expressions that fail
// (or contain a failing function call) are kept for run time: ksqlDB
// reports their errors per record.
func fold(n *node, inputs ...*node) *node {
	for _, in := range inputs {
		if !in.isConst {
			return n
		}
	}
	failed := false
	probe := &evalEnv{log: func(error) { failed = true }}
	v, err := n.eval(nil, probe)
	if err != nil || failed {
		return n
	}
	return constNode(v, n.typ)
}

// typeName renders a type for messages; an untyped NULL prints as NULL.
func typeName(t *types.Type) string {
	if t.Kind == types.KindUnknown {
		return "NULL"
	}
	return t.String()
}

// describe renders an expression for messages.
func describe(e ast.Expr) string { return ast.FormatExpr(e) }
