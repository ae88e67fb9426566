package expr

import (
	"errors"
	"math"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// errDivideByZero is Java's ArithmeticException for integer and decimal
// division by zero.
var errDivideByZero = errors.New("/ by zero")

// errNullOperand is ksqlDB's NullPointerException for arithmetic on a
// NULL value: its generated code unboxes the operands, so unlike a
// comparison (FALSE) the whole expression fails and the caller uses NULL
// and logs the error. Inside a lambda the error fails the function call.
var errNullOperand = errors.New("arithmetic on a NULL value")

func (c *compiler) arith(e *ast.Binary, l, r *node) (*node, error) {
	lk, rk := l.typ.Kind, r.typ.Kind
	if e.Op == ast.OpConcat || e.Op == ast.OpAdd && (lk == types.KindString || rk == types.KindString) {
		return c.concat(e, l, r)
	}
	if lk == types.KindUnknown || rk == types.KindUnknown {
		// ksqlDB rejects an untyped NULL operand; CAST(NULL AS …) is fine.
		return nil, errAt(sqlerr.Type, e, "Error processing expression: %s. Arithmetic on types %s and %s are not supported.",
			describe(e), nullTypeName(l.typ), nullTypeName(r.typ))
	}
	if !numericOrNull(l.typ) || !numericOrNull(r.typ) {
		return nil, errAt(sqlerr.Type, e, "Error processing expression: %s. Unsupported arithmetic types. %s %s",
			describe(e), typeName(l.typ), typeName(r.typ))
	}
	t := arithType(e.Op, l.typ, r.typ)
	var n *node
	switch t.Kind {
	case types.KindInteger, types.KindBigint:
		n = intArith(e.Op, t, asInt(l), asInt(r))
	case types.KindDouble:
		n = floatArith(e.Op, asFloat(l), asFloat(r))
	default:
		n = decimalArith(e.Op, t, l, r)
	}
	return fold(n, l, r), nil
}

// nullTypeName names a type as ksqlDB's arithmetic errors do: "null" for
// an untyped NULL.
func nullTypeName(t *types.Type) string {
	if t.Kind == types.KindUnknown {
		return "null"
	}
	return typeName(t)
}

func numericOrNull(t *types.Type) bool {
	return t.Kind.IsNumeric() || t.Kind == types.KindUnknown
}

// arithType is the result type of l op r for numeric operands; DECIMAL
// results follow ksqlDB's precision and scale rules.
func arithType(op ast.BinaryOp, l, r *types.Type) *types.Type {
	if l.Kind == types.KindUnknown {
		l = r
	}
	if r.Kind == types.KindUnknown {
		r = l
	}
	t, _ := functions.CommonType(l, r)
	if t.Kind != types.KindDecimal {
		return t
	}
	return decimalResultType(op, functions.DecimalFor(l), functions.DecimalFor(r))
}

func decimalResultType(op ast.BinaryOp, l, r *types.Type) *types.Type {
	p1, s1, p2, s2 := l.Precision, l.Scale, r.Precision, r.Scale
	switch op {
	case ast.OpMul:
		return types.DecimalOf(p1+p2+1, s1+s2)
	case ast.OpDiv:
		scale := max(6, s1+p2+1)
		return types.DecimalOf(p1-s1+s2+scale, scale)
	case ast.OpMod:
		scale := max(s1, s2)
		return types.DecimalOf(min(p1-s1, p2-s2)+scale, scale)
	}
	scale := max(s1, s2)
	return types.DecimalOf(max(p1-s1, p2-s2)+scale+1, scale)
}

// intOp applies an integer operator with Java's wrap-around semantics.
func intOp(op ast.BinaryOp) func(a, b int64) (int64, error) {
	switch op {
	case ast.OpSub:
		return func(a, b int64) (int64, error) { return a - b, nil }
	case ast.OpMul:
		return func(a, b int64) (int64, error) { return a * b, nil }
	case ast.OpDiv:
		return func(a, b int64) (int64, error) {
			if b == 0 {
				return 0, errDivideByZero
			}
			return a / b, nil
		}
	case ast.OpMod:
		return func(a, b int64) (int64, error) {
			if b == 0 {
				return 0, errDivideByZero
			}
			return a % b, nil
		}
	}
	return func(a, b int64) (int64, error) { return a + b, nil }
}

func intArith(op ast.BinaryOp, t *types.Type, l, r intFn) *node {
	f := intOp(op)
	is32 := t.Kind == types.KindInteger
	i64 := func(row *types.Row, env *evalEnv) (int64, bool, error) {
		a, b, err := intOperands(l, r, row, env)
		if err != nil {
			return 0, false, err
		}
		v, err := f(a, b)
		if is32 {
			// INTEGER arithmetic wraps at 32 bits, like Java's int.
			v = int64(int32(v))
		}
		return v, err == nil, err
	}
	return intNode(t, i64)
}

// intOperands evaluates both operands of integer arithmetic; a NULL is
// errNullOperand.
func intOperands(l, r intFn, row *types.Row, env *evalEnv) (int64, int64, error) {
	a, ok, err := l(row, env)
	if err != nil || !ok {
		return 0, 0, nullOperand(err)
	}
	b, ok, err := r(row, env)
	if err != nil || !ok {
		return 0, 0, nullOperand(err)
	}
	return a, b, nil
}

// nullOperand is err, or errNullOperand when the operand was NULL.
func nullOperand(err error) error {
	if err != nil {
		return err
	}
	return errNullOperand
}

// intNode builds a node around an int64 fast path of an INTEGER or BIGINT
// expression.
func intNode(t *types.Type, i64 intFn) *node {
	n := &node{typ: t, i64: i64}
	if t.Kind == types.KindInteger {
		n.eval = func(row *types.Row, env *evalEnv) (any, error) {
			v, ok, err := i64(row, env)
			if !ok || err != nil {
				return nil, err
			}
			return int32(v), nil
		}
		return n
	}
	n.eval = func(row *types.Row, env *evalEnv) (any, error) {
		v, ok, err := i64(row, env)
		if !ok || err != nil {
			return nil, err
		}
		return v, nil
	}
	return n
}

// floatNode builds a node around a float64 fast path.
func floatNode(f64 floatFn) *node {
	return &node{typ: types.DoubleType, f64: f64, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, ok, err := f64(row, env)
		if !ok || err != nil {
			return nil, err
		}
		return v, nil
	}}
}

func floatOp(op ast.BinaryOp) func(a, b float64) float64 {
	switch op {
	case ast.OpSub:
		return func(a, b float64) float64 { return a - b }
	case ast.OpMul:
		return func(a, b float64) float64 { return a * b }
	case ast.OpDiv:
		return func(a, b float64) float64 { return a / b }
	case ast.OpMod:
		return math.Mod
	}
	return func(a, b float64) float64 { return a + b }
}

func floatArith(op ast.BinaryOp, l, r floatFn) *node {
	f := floatOp(op)
	return floatNode(func(row *types.Row, env *evalEnv) (float64, bool, error) {
		a, ok, err := l(row, env)
		if err != nil || !ok {
			return 0, false, nullOperand(err)
		}
		b, ok, err := r(row, env)
		if err != nil || !ok {
			return 0, false, nullOperand(err)
		}
		return f(a, b), true, nil
	})
}

// asFloat returns a float64 fast path for any numeric node.
func asFloat(n *node) floatFn {
	if n.f64 != nil {
		return n.f64
	}
	if n.i64 != nil {
		i64 := n.i64
		return func(row *types.Row, env *evalEnv) (float64, bool, error) {
			v, ok, err := i64(row, env)
			return float64(v), ok, err
		}
	}
	eval := n.eval
	return func(row *types.Row, env *evalEnv) (float64, bool, error) {
		v, err := eval(row, env)
		if v == nil || err != nil {
			return 0, false, err
		}
		f, err := toFloat64(v)
		return f, err == nil, err
	}
}

// decimalContext computes with enough digits for every result type
// before rounding (half up) to the result scale.
func decimalContext() *apd.Context {
	return &apd.Context{Precision: 200, MaxExponent: apd.MaxExponent, MinExponent: apd.MinExponent, Rounding: apd.RoundHalfUp}
}

// decimalArith evaluates DECIMAL arithmetic: + - * in int64 when the
// operands and the result allow (fixedArith), otherwise (and / and %)
// with apd.
func decimalArith(op ast.BinaryOp, t *types.Type, l, r *node) *node {
	le, re := l.eval, r.eval
	fixed := op == ast.OpAdd || op == ast.OpSub || op == ast.OpMul
	n := &node{typ: t}
	n.eval = func(row *types.Row, env *evalEnv) (any, error) {
		a, err := le(row, env)
		if a == nil || err != nil {
			return nil, nullOperand(err)
		}
		b, err := re(row, env)
		if b == nil || err != nil {
			return nil, nullOperand(err)
		}
		if fixed {
			if d, ok := fixedArith(op, t, a, b); ok {
				return d, nil
			}
		}
		var da, db apd.Decimal
		return decimalOp(op, t, decimalOperand(&da, a), decimalOperand(&db, b))
	}
	return n
}

// decimalOperand is a non-NULL numeric operand as a decimal: v itself
// when it is one, an integer set into d (the caller's, on its stack: an
// integer operand, q1's price, costs no allocation), else toDecimal's.
func decimalOperand(d *apd.Decimal, v any) *apd.Decimal {
	switch x := v.(type) {
	case int64:
		return d.SetInt64(x)
	case int32:
		return d.SetInt64(int64(x))
	}
	return toDecimal(v)
}

func decimalOp(op ast.BinaryOp, t *types.Type, a, b *apd.Decimal) (any, error) {
	out := new(apd.Decimal)
	var err error
	switch op {
	case ast.OpAdd:
		_, err = decimalContext().Add(out, a, b)
	case ast.OpSub:
		_, err = decimalContext().Sub(out, a, b)
	case ast.OpMul:
		_, err = decimalContext().Mul(out, a, b)
	case ast.OpDiv, ast.OpMod:
		if b.IsZero() {
			return nil, errDivideByZero
		}
		if op == ast.OpDiv {
			_, err = decimalContext().Quo(out, a, b)
		} else {
			_, err = decimalContext().Rem(out, a, b)
		}
	}
	if err != nil {
		return nil, err
	}
	return asValue(roundDecimal(out, t))
}
