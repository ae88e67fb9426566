package expr

import (
	"fmt"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// converter converts a non-NULL value from one type to another.
type converter func(v any) (any, error)

func (c *compiler) cast(e *ast.Cast) (*node, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	n, err := castNode(x, e.To)
	if err != nil {
		return nil, errAt(sqlerr.Type, e, "Cast of %s to %s is not supported", typeName(x.typ), e.To)
	}
	return n, nil
}

// castNode wraps x in an explicit conversion to type to.
func castNode(x *node, to *types.Type) (*node, error) {
	if x.typ.Equal(to) {
		return x, nil
	}
	conv, err := converterFor(x.typ, to)
	if err != nil {
		return nil, err
	}
	return fold(mapNode(x, to, conv), x), nil
}

// implicitNode converts x to type to if an implicit conversion (widening)
// allows it.
func implicitNode(x *node, to *types.Type) (*node, error) {
	if _, ok := functions.CanImplicitlyCast(x.typ, to); !ok {
		return nil, fmt.Errorf("cannot convert %s to %s", typeName(x.typ), to)
	}
	return castNode(x, to)
}

// Coerce converts v of type from to type to with the conversions CAST
// allows (INSERT VALUES and the serdes use it for implicit conversions).
// NULL stays NULL.
func Coerce(v any, from, to *types.Type) (any, error) {
	if v == nil || from.Equal(to) {
		return v, nil
	}
	conv, err := converterFor(from, to)
	if err != nil {
		return nil, err
	}
	return conv(v)
}

// converterFor returns the conversion from → to, or an error when CAST
// does not support it.
func converterFor(from, to *types.Type) (converter, error) {
	if from.Kind == types.KindUnknown || from.Equal(to) {
		return func(v any) (any, error) { return v, nil }, nil
	}
	var conv converter
	switch to.Kind {
	case types.KindString:
		conv = toStringConverter(from)
	case types.KindBoolean:
		conv = toBooleanConverter(from)
	case types.KindInteger, types.KindBigint, types.KindDouble:
		conv = toNumberConverter(from, to.Kind)
	case types.KindDecimal:
		conv = toDecimalConverter(from, to)
	case types.KindTimestamp, types.KindDate, types.KindTime:
		conv = toTemporalConverter(from, to.Kind)
	case types.KindBytes:
		conv = nil
	case types.KindArray, types.KindMap, types.KindStruct:
		return containerConverter(from, to)
	}
	if conv == nil {
		return nil, fmt.Errorf("Cast of %s to %s is not supported", from, to)
	}
	return conv, nil
}

func containerConverter(from, to *types.Type) (converter, error) {
	if from.Kind != to.Kind {
		return nil, fmt.Errorf("Cast of %s to %s is not supported", from, to)
	}
	switch to.Kind {
	case types.KindArray:
		return arrayConverter(from, to)
	case types.KindMap:
		return mapConverter(from, to)
	}
	return structConverter(from, to)
}

// nullable lifts a converter over NULL elements.
func nullable(conv converter) converter {
	return func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		return conv(v)
	}
}

func arrayConverter(from, to *types.Type) (converter, error) {
	elem, err := converterFor(from.Elem, to.Elem)
	if err != nil {
		return nil, err
	}
	elem = nullable(elem)
	return func(v any) (any, error) {
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			c, err := elem(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}, nil
}

func mapConverter(from, to *types.Type) (converter, error) {
	if from.Key.Kind != types.KindUnknown && !from.Key.Equal(to.Key) {
		return nil, fmt.Errorf("Cast of %s to %s is not supported", from, to)
	}
	val, err := converterFor(from.Elem, to.Elem)
	if err != nil {
		return nil, err
	}
	val = nullable(val)
	return func(v any) (any, error) {
		in := v.(map[string]any)
		out := make(map[string]any, len(in))
		for k, e := range in {
			c, err := val(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}, nil
}

// structConverter matches fields by exact name (ksqlDB's matching is
// case-sensitive); target fields missing from the source are NULL.
func structConverter(from, to *types.Type) (converter, error) {
	src := make([]int, len(to.Fields))
	convs := make([]converter, len(to.Fields))
	for i, f := range to.Fields {
		src[i] = exactField(from, f.Name)
		if src[i] < 0 {
			continue
		}
		conv, err := converterFor(from.Fields[src[i]].Type, f.Type)
		if err != nil {
			return nil, err
		}
		convs[i] = nullable(conv)
	}
	return func(v any) (any, error) {
		in := v.(*types.StructValue)
		out := &types.StructValue{Type: to, Values: make([]any, len(to.Fields))}
		for i, j := range src {
			if j < 0 {
				continue
			}
			c, err := convs[i](in.Values[j])
			if err != nil {
				return nil, err
			}
			out.Values[i] = c
		}
		return out, nil
	}, nil
}

// exactField returns the index of the field named exactly name, or -1.
func exactField(t *types.Type, name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// ImplicitCast returns c converted to type to when ksqlDB's implicit
// coercion allows it (numeric widening, element-wise for containers), e.g.
// to write a query's INTEGER column into a DECIMAL(5, 2) sink column. It
// returns c itself when the types are equal.
func ImplicitCast(c *Compiled, to *types.Type) (*Compiled, error) {
	if c.n.typ.Equal(to) {
		return c, nil
	}
	n, err := implicitNode(c.n, to)
	if err != nil {
		return nil, err
	}
	return &Compiled{n: withFastPaths(n), env: c.env, cols: c.cols}, nil
}
