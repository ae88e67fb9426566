package expr

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

func (c *compiler) literal(e *ast.Literal) (*node, error) {
	t := e.Type
	if t == nil {
		t = types.UnknownType
	}
	v, ok := normalizeLiteral(e.Value, t)
	if !ok {
		return nil, errAt(sqlerr.Semantic, e, "literal %v (%T) does not match its type %s", e.Value, e.Value, typeName(t))
	}
	if d, ok := v.(*apd.Decimal); ok && t.Kind == types.KindDecimal && t.Precision == 0 {
		t = decimalLiteralType(d)
	}
	return constNode(v, t), nil
}

// normalizeLiteral brings a literal's Go value to the representation of
// its type (hand-built ASTs may use int or float32).
func normalizeLiteral(v any, t *types.Type) (any, bool) {
	switch x := v.(type) {
	case int:
		switch t.Kind {
		case types.KindInteger:
			return int32(x), true
		case types.KindBigint:
			return int64(x), true
		}
		return nil, false
	case int64:
		if t.Kind == types.KindInteger {
			return int32(x), x == int64(int32(x))
		}
	case int32:
		if t.Kind == types.KindBigint {
			return int64(x), true
		}
	case float32:
		return float64(x), t.Kind == types.KindDouble
	}
	return v, true
}

// decimalLiteralType is the type of a decimal literal: its digits and
// scale (1.50 is DECIMAL(3, 2)).
func decimalLiteralType(d *apd.Decimal) *types.Type {
	scale := max(0, -int(d.Exponent))
	digits := int(d.NumDigits())
	return types.DecimalOf(max(digits, scale, 1), scale)
}

func (c *compiler) column(e *ast.ColumnRef) (*node, error) {
	if e.Source == "" {
		for i := len(c.lambdaVars) - 1; i >= 0; i-- {
			if c.lambdaVars[i].name == e.Name {
				return lambdaVarNode(i, c.lambdaVars[i].typ), nil
			}
		}
	}
	ref, err := c.scope.Resolve(e.Source, e.Name)
	if err != nil {
		return nil, wrapErr(sqlerr.Unknown, e, err)
	}
	if ref.Pseudo != NotPseudo {
		return pseudoNode(ref), nil
	}
	if c.share != nil {
		c.share.refs = append(c.share.refs, strconv.Itoa(ref.Index)+":"+ref.Type.String())
	}
	c.cols = append(c.cols, ref.Index)
	return columnNode(ref.Index, ref.Type), nil
}

// columnNode reads column i. A row shorter than the schema (a table
// tombstone carries only its key columns) reads NULL.
func columnNode(i int, t *types.Type) *node {
	get := func(row *types.Row) any {
		if i < len(row.Values) {
			return row.Values[i]
		}
		return nil
	}
	n := &node{typ: t}
	n.eval = func(row *types.Row, _ *evalEnv) (any, error) { return get(row), nil }
	switch t.Kind {
	case types.KindInteger:
		n.i64 = func(row *types.Row, _ *evalEnv) (int64, bool, error) {
			v, ok := get(row).(int32)
			return int64(v), ok, nil
		}
	case types.KindBigint:
		n.i64 = func(row *types.Row, _ *evalEnv) (int64, bool, error) {
			v, ok := get(row).(int64)
			return v, ok, nil
		}
	case types.KindDouble:
		n.f64 = func(row *types.Row, _ *evalEnv) (float64, bool, error) {
			v, ok := get(row).(float64)
			return v, ok, nil
		}
	}
	return n
}

func lambdaVarNode(i int, t *types.Type) *node {
	return &node{typ: t, eval: func(_ *types.Row, env *evalEnv) (any, error) { return env.vars[i], nil }}
}

func pseudoNode(ref Ref) *node {
	get := pseudoGetter(ref.Pseudo)
	n := &node{typ: ref.Type, rowTime: ref.Pseudo == RowTime || ref.Pseudo == WindowStart || ref.Pseudo == WindowEnd}
	n.i64 = func(row *types.Row, _ *evalEnv) (int64, bool, error) {
		v, ok := get(row)
		return v, ok, nil
	}
	if ref.Type.Kind == types.KindInteger {
		n.eval = func(row *types.Row, _ *evalEnv) (any, error) {
			if v, ok := get(row); ok {
				return int32(v), nil
			}
			return nil, nil
		}
		return n
	}
	n.eval = func(row *types.Row, _ *evalEnv) (any, error) {
		if v, ok := get(row); ok {
			return v, nil
		}
		return nil, nil
	}
	return n
}

// pseudoGetter reads a pseudo column from a row's metadata; ok is false
// for window bounds of an unwindowed row.
func pseudoGetter(p Pseudo) func(*types.Row) (int64, bool) {
	switch p {
	case RowPartition:
		return func(r *types.Row) (int64, bool) { return int64(r.Partition), true }
	case RowOffset:
		return func(r *types.Row) (int64, bool) { return r.Offset, true }
	case WindowStart:
		return func(r *types.Row) (int64, bool) {
			if r.Window == nil {
				return 0, false
			}
			return r.Window.Start, true
		}
	case WindowEnd:
		return func(r *types.Row) (int64, bool) {
			if r.Window == nil {
				return 0, false
			}
			return r.Window.End, true
		}
	}
	return func(r *types.Row) (int64, bool) { return r.Time, true }
}
