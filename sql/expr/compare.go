package expr

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// comparisonName is ksqlDB's name of a comparison operator in messages.
func comparisonName(op ast.BinaryOp) string {
	switch op {
	case ast.OpEQ:
		return "EQUAL"
	case ast.OpNE:
		return "NOT_EQUAL"
	case ast.OpLT:
		return "LESS_THAN"
	case ast.OpLE:
		return "LESS_THAN_OR_EQUAL"
	case ast.OpGT:
		return "GREATER_THAN"
	case ast.OpGE:
		return "GREATER_THAN_OR_EQUAL"
	case ast.OpIsDistinctFrom:
		return "IS_DISTINCT_FROM"
	}
	return "IS_NOT_DISTINCT_FROM"
}

// cmpTest turns a three-way comparison result into the operator's answer.
func cmpTest(op ast.BinaryOp) func(c int) bool {
	switch op {
	case ast.OpNE:
		return func(c int) bool { return c != 0 }
	case ast.OpLT:
		return func(c int) bool { return c < 0 }
	case ast.OpLE:
		return func(c int) bool { return c <= 0 }
	case ast.OpGT:
		return func(c int) bool { return c == 1 }
	case ast.OpGE:
		return func(c int) bool { return c == 0 || c == 1 }
	}
	return func(c int) bool { return c == 0 }
}

// comparison compiles l op r. As in ksqlDB, a comparison with a NULL
// operand is FALSE, not NULL.
func (c *compiler) comparison(e *ast.Binary, l, r *node) (*node, error) {
	if l.typ.Kind == types.KindUnknown && r.typ.Kind == types.KindUnknown {
		// ksqlDB's ComparisonUtil names the operands' types: NULL for both.
		return nil, errAt(sqlerr.Type, e, "Comparison with NULL not supported: NULL %s NULL", e.Op)
	}
	cmp, err := c.comparator(e, e.Op, l, r)
	if err != nil {
		return nil, err
	}
	test := cmpTest(e.Op)
	n := &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, ok, err := cmp(row, env)
		if !ok || err != nil {
			return false, err
		}
		return test(v), nil
	}}
	return fold(n, l, r), nil
}

// cmpFn compares two operands; ok is false when either is NULL.
type cmpFn func(row *types.Row, env *evalEnv) (c int, ok bool, err error)

// comparator type-checks a comparison and returns its three-way compare.
func (c *compiler) comparator(e *ast.Binary, op ast.BinaryOp, l, r *node) (cmpFn, error) {
	lt, rt := l.typ, r.typ
	switch {
	case lt.Kind == types.KindUnknown || rt.Kind == types.KindUnknown:
		return func(*types.Row, *evalEnv) (int, bool, error) { return 0, false, nil }, nil
	case lt.Kind.IsNumeric() && rt.Kind.IsNumeric():
		return numericComparator(l, r), nil
	}
	l, r, err := c.alignComparable(e, op, l, r)
	if err != nil {
		return nil, err
	}
	return valueComparator(l, r, op == ast.OpEQ || op == ast.OpNE || op == ast.OpIsDistinctFrom || op == ast.OpIsNotDistinctFrom), nil
}

// alignComparable converts the operands of a non-numeric comparison to a
// common type: a STRING against a temporal type is parsed as that type, a
// DATE against a TIMESTAMP becomes a TIMESTAMP, and a string constant
// against a BIGINT (ROWTIME) is parsed as a timestamp in epoch millis.
func (c *compiler) alignComparable(e *ast.Binary, op ast.BinaryOp, l, r *node) (*node, *node, error) {
	lt, rt := l.typ, r.typ
	bad := func() error {
		return errAt(sqlerr.Type, e, "Cannot compare %s (%s) to %s (%s) with %s.",
			describe(e.L), typeName(lt), describe(e.R), typeName(rt), comparisonName(op))
	}
	if lt.Kind == rt.Kind {
		if !orderable(lt) && !equalityOnly(op) {
			return nil, nil, bad()
		}
		common, ok := functions.CommonType(lt, rt)
		if !ok {
			return nil, nil, bad()
		}
		l2, err1 := castNode(l, common)
		r2, err2 := castNode(r, common)
		if err1 != nil || err2 != nil {
			return nil, nil, bad()
		}
		return l2, r2, nil
	}
	if to, ok := temporalTarget(lt, rt); ok {
		l2, err1 := castNode(l, to)
		r2, err2 := castNode(r, to)
		if err1 != nil || err2 != nil {
			return nil, nil, bad()
		}
		return l2, r2, nil
	}
	if l2, r2, ok := magicTimestamp(l, r); ok {
		return l2, r2, nil
	}
	return nil, nil, bad()
}

func equalityOnly(op ast.BinaryOp) bool {
	return op == ast.OpEQ || op == ast.OpNE || op == ast.OpIsDistinctFrom || op == ast.OpIsNotDistinctFrom
}

// orderable reports whether values of t have an order (<, >); like
// ksqlDB, BOOLEANs and containers only compare for equality.
func orderable(t *types.Type) bool {
	switch t.Kind {
	case types.KindArray, types.KindMap, types.KindStruct, types.KindBoolean:
		return false
	}
	return true
}

func isTemporal(k types.Kind) bool {
	return k == types.KindTimestamp || k == types.KindDate || k == types.KindTime
}

// temporalTarget picks the type a mixed temporal/string comparison is
// done in.
func temporalTarget(a, b *types.Type) (*types.Type, bool) {
	switch {
	case isTemporal(a.Kind) && b.Kind == types.KindString:
		return a, true
	case isTemporal(b.Kind) && a.Kind == types.KindString:
		return b, true
	case a.Kind == types.KindTimestamp && b.Kind == types.KindDate, a.Kind == types.KindDate && b.Kind == types.KindTimestamp:
		return types.TimestampType, true
	}
	return nil, false
}

// magicTimestamp handles `ROWTIME > '2020-01-01T00:00:00'`: a constant
// string compared with ROWTIME, WINDOWSTART or WINDOWEND is parsed as a
// timestamp in epoch milliseconds.
func magicTimestamp(l, r *node) (*node, *node, bool) {
	conv := func(n *node) (*node, bool) {
		s, ok := n.value.(string)
		if !n.isConst || !ok {
			return nil, false
		}
		ts, err := parseTimestampLiteral(s)
		if err != nil {
			return nil, false
		}
		return constNode(int64(ts), types.BigintType), true
	}
	if l.rowTime && r.typ.Kind == types.KindString {
		r2, ok := conv(r)
		return l, r2, ok
	}
	if r.rowTime && l.typ.Kind == types.KindString {
		l2, ok := conv(l)
		return l2, r, ok
	}
	return nil, nil, false
}

// numericComparator compares numbers of any numeric kinds, unboxed where
// both sides allow it.
func numericComparator(l, r *node) cmpFn {
	t, _ := functions.CommonType(l.typ, r.typ)
	switch t.Kind {
	case types.KindInteger, types.KindBigint:
		return intComparator(asInt(l), asInt(r))
	case types.KindDouble:
		return floatComparator(asFloat(l), asFloat(r))
	}
	le, re := l.eval, r.eval
	return func(row *types.Row, env *evalEnv) (int, bool, error) {
		a, err := le(row, env)
		if a == nil || err != nil {
			return 0, false, err
		}
		b, err := re(row, env)
		if b == nil || err != nil {
			return 0, false, err
		}
		if c, ok := fixedCompare(a, b); ok {
			return c, true, nil
		}
		var da, db apd.Decimal
		return decimalOf(a, &da).Cmp(decimalOf(b, &db)), true, nil
	}
}

// decimalOf is toDecimal that converts integers into buf, so comparing an
// integer column with a DECIMAL literal does not allocate.
func decimalOf(v any, buf *apd.Decimal) *apd.Decimal {
	switch x := v.(type) {
	case int32:
		return buf.SetInt64(int64(x))
	case int64:
		return buf.SetInt64(x)
	}
	return toDecimal(v)
}

func intComparator(l, r intFn) cmpFn {
	return func(row *types.Row, env *evalEnv) (int, bool, error) {
		a, ok, err := l(row, env)
		if !ok || err != nil {
			return 0, false, err
		}
		b, ok, err := r(row, env)
		if !ok || err != nil {
			return 0, false, err
		}
		switch {
		case a < b:
			return -1, true, nil
		case a > b:
			return 1, true, nil
		}
		return 0, true, nil
	}
}

func floatComparator(l, r floatFn) cmpFn {
	return func(row *types.Row, env *evalEnv) (int, bool, error) {
		a, ok, err := l(row, env)
		if !ok || err != nil {
			return 0, false, err
		}
		b, ok, err := r(row, env)
		if !ok || err != nil {
			return 0, false, err
		}
		switch {
		case a < b:
			return -1, true, nil
		case a > b:
			return 1, true, nil
		case a == b:
			return 0, true, nil
		}
		// NaN: Java's primitive comparisons are all false except <>.
		return 2, true, nil
	}
}

// valueComparator compares two non-numeric values of the same type;
// equality-only types (containers) compare 0 or 1.
func valueComparator(l, r *node, equality bool) cmpFn {
	le, re := l.eval, r.eval
	return func(row *types.Row, env *evalEnv) (int, bool, error) {
		a, err := le(row, env)
		if a == nil || err != nil {
			return 0, false, err
		}
		b, err := re(row, env)
		if b == nil || err != nil {
			return 0, false, err
		}
		if c, ok := types.CompareValues(a, b); ok {
			return c, true, nil
		}
		if equality && types.ValuesEqual(a, b) {
			return 0, true, nil
		}
		return 1, true, nil
	}
}

// distinct is IS [NOT] DISTINCT FROM: NULL-safe equality. Two NULLs are
// not distinct; a NULL and a value are.
func (c *compiler) distinct(e *ast.Binary, l, r *node) (*node, error) {
	want := e.Op == ast.OpIsDistinctFrom
	if l.typ.Kind == types.KindUnknown && r.typ.Kind == types.KindUnknown {
		return constNode(!want, types.BooleanType), nil
	}
	le, re := l.eval, r.eval
	if l.typ.Kind != types.KindUnknown && r.typ.Kind != types.KindUnknown {
		// The comparison runs over the already evaluated operands, passed
		// as a two-column row.
		a, b := columnNode(0, l.typ), columnNode(1, r.typ)
		cmp, err := c.comparator(e, e.Op, withFastPaths(a), withFastPaths(b))
		if err != nil {
			return nil, err
		}
		return fold(distinctNode(le, re, cmp, want), l, r), nil
	}
	// One side is an untyped NULL: distinct exactly when the other is not.
	return fold(distinctNode(le, re, nil, want), l, r), nil
}

func distinctNode(le, re evalFn, cmp cmpFn, want bool) *node {
	return &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		a, err := le(row, env)
		if err != nil {
			return nil, err
		}
		b, err := re(row, env)
		if err != nil {
			return nil, err
		}
		if a == nil || b == nil {
			return (a == nil) != (b == nil) == want, nil
		}
		c, _, err := cmp(&types.Row{Values: []any{a, b}}, nil)
		if err != nil {
			return nil, err
		}
		return (c != 0) == want, nil
	}}
}

// toDecimal converts a non-NULL numeric value to a decimal.
func toDecimal(v any) *apd.Decimal {
	switch x := v.(type) {
	case *apd.Decimal:
		return x
	case int32:
		return apd.New(int64(x), 0)
	case int64:
		return apd.New(x, 0)
	case float64:
		d, _, _ := apd.NewFromString(functions.FormatJavaDouble(x))
		return d
	}
	return apd.New(0, 0)
}
