package functions

import "github.com/sqlstream/sqlstream/sql/types"

// Implicit conversions follow ksqlDB: numbers widen along
// INTEGER → BIGINT → DECIMAL → DOUBLE, an untyped NULL converts to any
// type, and containers convert element by element.

// numericRank orders the numeric kinds by width.
func numericRank(k types.Kind) int {
	switch k {
	case types.KindInteger:
		return 1
	case types.KindBigint:
		return 2
	case types.KindDecimal:
		return 3
	case types.KindDouble:
		return 4
	}
	return 0
}

// DecimalFor returns the DECIMAL type that holds every value of the
// integer type t exactly: DECIMAL(10, 0) for INTEGER, DECIMAL(19, 0) for
// BIGINT; t itself when it already is a DECIMAL.
func DecimalFor(t *types.Type) *types.Type {
	switch t.Kind {
	case types.KindInteger:
		return types.DecimalOf(10, 0)
	case types.KindBigint:
		return types.DecimalOf(19, 0)
	}
	return t
}

// CanImplicitlyCast reports whether a value of type from converts to type
// to without an explicit CAST, and how far it widens (0 for the same type).
func CanImplicitlyCast(from, to *types.Type) (cost int, ok bool) {
	if from.Kind == types.KindUnknown {
		return 0, true
	}
	if from.Equal(to) {
		return 0, true
	}
	fr, tr := numericRank(from.Kind), numericRank(to.Kind)
	if fr > 0 && tr > 0 {
		if fr > tr || fr == tr && from.Kind != types.KindDecimal {
			return 0, false
		}
		return tr - fr + 1, true
	}
	return containerCast(from, to)
}

func containerCast(from, to *types.Type) (int, bool) {
	if from.Kind != to.Kind {
		return 0, false
	}
	switch from.Kind {
	case types.KindArray:
		return CanImplicitlyCast(from.Elem, to.Elem)
	case types.KindMap:
		c1, ok1 := CanImplicitlyCast(from.Key, to.Key)
		c2, ok2 := CanImplicitlyCast(from.Elem, to.Elem)
		return c1 + c2, ok1 && ok2
	case types.KindStruct:
		return structCast(from, to)
	}
	return 0, false
}

func structCast(from, to *types.Type) (int, bool) {
	if len(from.Fields) != len(to.Fields) {
		return 0, false
	}
	total := 0
	for i, f := range from.Fields {
		if f.Name != to.Fields[i].Name {
			return 0, false
		}
		c, ok := CanImplicitlyCast(f.Type, to.Fields[i].Type)
		if !ok {
			return 0, false
		}
		total += c
	}
	return total, true
}

// CommonType returns the narrowest type both a and b implicitly convert
// to (the result type of CASE branches, IN lists, COALESCE and ARRAY[…]
// elements), or false when there is none.
func CommonType(a, b *types.Type) (*types.Type, bool) {
	switch {
	case a.Kind == types.KindUnknown:
		return b, true
	case b.Kind == types.KindUnknown || a.Equal(b):
		return a, true
	}
	ra, rb := numericRank(a.Kind), numericRank(b.Kind)
	if ra > 0 && rb > 0 {
		return commonNumeric(a, b), true
	}
	if a.Kind != b.Kind {
		return nil, false
	}
	return commonContainer(a, b)
}

func commonNumeric(a, b *types.Type) *types.Type {
	switch {
	case a.Kind == types.KindDouble || b.Kind == types.KindDouble:
		return types.DoubleType
	case a.Kind == types.KindDecimal || b.Kind == types.KindDecimal:
		return WidenDecimal(DecimalFor(a), DecimalFor(b))
	case a.Kind == types.KindBigint || b.Kind == types.KindBigint:
		return types.BigintType
	}
	return types.IntegerType
}

// WidenDecimal returns the DECIMAL type that holds every value of two
// DECIMAL types: the larger integer part plus the larger scale.
func WidenDecimal(a, b *types.Type) *types.Type {
	scale := max(a.Scale, b.Scale)
	digits := max(a.Precision-a.Scale, b.Precision-b.Scale)
	return types.DecimalOf(digits+scale, scale)
}

func commonContainer(a, b *types.Type) (*types.Type, bool) {
	switch a.Kind {
	case types.KindArray:
		e, ok := CommonType(a.Elem, b.Elem)
		return types.ArrayOf(e), ok
	case types.KindMap:
		k, ok1 := CommonType(a.Key, b.Key)
		v, ok2 := CommonType(a.Elem, b.Elem)
		return types.MapOf(k, v), ok1 && ok2
	case types.KindStruct:
		return commonStruct(a, b)
	}
	return nil, false
}

func commonStruct(a, b *types.Type) (*types.Type, bool) {
	if len(a.Fields) != len(b.Fields) {
		return nil, false
	}
	fields := make([]types.Field, len(a.Fields))
	for i, f := range a.Fields {
		if f.Name != b.Fields[i].Name {
			return nil, false
		}
		t, ok := CommonType(f.Type, b.Fields[i].Type)
		if !ok {
			return nil, false
		}
		fields[i] = types.Field{Name: f.Name, Type: t}
	}
	return types.StructOf(fields...), true
}
