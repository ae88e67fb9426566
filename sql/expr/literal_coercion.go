package expr

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Literal coercion (ksqlDB's "literal rules"): besides the implicit
// widening every expression gets, a constant may be converted to a STRING,
// a STRING constant holding a number to a number, one holding a boolean
// word (true, false, yes, no or a prefix of them) to a BOOLEAN, and one
// holding an ISO-8601 text to a TIMESTAMP, DATE or TIME, and one holding
// base64 to BYTES.

// CoerceLiteral converts a constant (an INSERT … VALUES value) of type
// from to type to under ksqlDB's implicit coercion rules for literals:
// numeric widening, anything to STRING, numeric/boolean/ISO-8601 strings
// to numbers, BOOLEAN and temporal types, base64 strings to BYTES,
// containers element-wise.
// Unlike Coerce (CAST rules) it refuses narrowing, e.g. 1.5 to INTEGER.
func CoerceLiteral(v any, from, to *types.Type) (any, error) { return coerceLiteral(v, from, to) }

// coerceLiteral converts constant v of type from to type to under the
// literal rules.
func coerceLiteral(v any, from, to *types.Type) (any, error) {
	if v == nil || from.Equal(to) {
		return v, nil
	}
	if _, ok := functions.CanImplicitlyCast(from, to); ok {
		return Coerce(v, from, to)
	}
	switch {
	case to.Kind == types.KindString && isPrimitive(from):
		return JavaString(v), nil
	case from.Kind == types.KindString && to.Kind == types.KindBoolean:
		return literalBoolean(v.(string), to)
	case from.Kind == types.KindString && to.Kind == types.KindBytes:
		return literalBytes(v.(string))
	case from.Kind == types.KindString && (to.Kind.IsNumeric() || isTemporal(to.Kind)):
		out, err := Coerce(v, from, to)
		if err != nil {
			return nil, invalidLiteral(v, to)
		}
		return out, nil
	case from.Kind == to.Kind && from.Kind == types.KindArray:
		return coerceLiteralArray(v.([]any), from, to)
	case from.Kind == to.Kind && from.Kind == types.KindMap:
		return coerceLiteralMap(v.(map[string]any), from, to)
	case from.Kind == to.Kind && from.Kind == types.KindStruct:
		return coerceLiteralStruct(v.(*types.StructValue), to)
	}
	return nil, coercionFailure(v, from, to)
}

// coercionFailure is ksqlDB's CoercionUtil text for a literal that cannot
// take the type: "operator does not exist: INTEGER = BOOLEAN (true)" and
// its hint.
func coercionFailure(v any, from, to *types.Type) error {
	val := "null"
	if v != nil {
		val = fmt.Sprint(v)
	}
	return fmt.Errorf("operator does not exist: %s = %s (%s)\nHint: You might need to add explicit type casts.", to, typeName(from), val)
}

func isPrimitive(t *types.Type) bool {
	switch t.Kind {
	case types.KindArray, types.KindMap, types.KindStruct, types.KindUnknown:
		return false
	}
	return true
}

func invalidLiteral(v any, to *types.Type) error {
	return fmt.Errorf("invalid input syntax for type %s: %s.", to, quoteValue(v))
}

// literalBytes decodes a STRING given for BYTES as ksqlDB's value coercer
// does: trimmed of spaces and control characters, then base64 (standard
// alphabet, padding optional). Its error names the first bad character.
func literalBytes(s string) ([]byte, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	enc := base64.StdEncoding
	if !strings.HasSuffix(s, "=") {
		enc = base64.RawStdEncoding
	}
	at := int64(strings.IndexAny(s, "\r\n")) // Go's decoder skips line breaks; ksqlDB's refuses them
	b, err := enc.DecodeString(s)
	var bad base64.CorruptInputError
	if errors.As(err, &bad) && (at < 0 || int64(bad) < at) {
		at = int64(bad)
	}
	if at >= 0 {
		return nil, fmt.Errorf("not a base64 string (invalid at character %d of the trimmed string)", at+1)
	}
	return b, err
}

// literalBoolean accepts true, false, yes, no and their prefixes.
func literalBoolean(s string, to *types.Type) (any, error) {
	low := strings.ToLower(strings.TrimSpace(s))
	if low != "" {
		for _, w := range []string{"true", "yes"} {
			if strings.HasPrefix(w, low) {
				return true, nil
			}
		}
		for _, w := range []string{"false", "no"} {
			if strings.HasPrefix(w, low) {
				return false, nil
			}
		}
	}
	return nil, invalidLiteral(s, to)
}

func coerceLiteralArray(in []any, from, to *types.Type) (any, error) {
	out := make([]any, len(in))
	for i, e := range in {
		c, err := coerceLiteral(e, from.Elem, to.Elem)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func coerceLiteralMap(in map[string]any, from, to *types.Type) (any, error) {
	if !from.Key.Equal(to.Key) {
		return nil, fmt.Errorf("cannot coerce %s to %s", from, to)
	}
	out := make(map[string]any, len(in))
	for k, e := range in {
		c, err := coerceLiteral(e, from.Elem, to.Elem)
		if err != nil {
			return nil, err
		}
		out[k] = c
	}
	return out, nil
}

// literalNumberType is the narrowest numeric type a numeric STRING
// constant fits: INTEGER, BIGINT, else a DECIMAL holding it exactly
// ('2e1' is DECIMAL(2, 0)).
func literalNumberType(s string) (*types.Type, bool) {
	s = strings.TrimSpace(s)
	if _, err := parseNumber(s, types.KindInteger); err == nil {
		return types.IntegerType, true
	}
	if _, err := parseNumber(s, types.KindBigint); err == nil {
		return types.BigintType, true
	}
	d, _, err := apd.NewFromString(s)
	if err != nil || d.Form != apd.Finite {
		return nil, false
	}
	scale := max(0, -int(d.Exponent))
	intDigits := max(0, int(d.NumDigits())+int(d.Exponent))
	return types.DecimalOf(max(intDigits+scale, 1), scale), true
}

// unifyList converts a list of expressions (ARRAY elements, MAP values,
// IN lists) to a common type: the first non-NULL element decides the kind;
// other elements widen with it or, when constant, follow the literal
// rules. bad reports the element that cannot be converted.
func unifyList(ns []*node, bad func(i int, want *types.Type, err error) error) ([]*node, *types.Type, error) {
	t := types.UnknownType
	for i, n := range ns {
		common, ok := functions.CommonType(t, n.typ)
		if !ok {
			common, ok = structSuperset(t, n)
		}
		if !ok {
			common, ok = literalCommon(t, n)
		}
		if !ok {
			return nil, nil, bad(i, t, nil)
		}
		t = common
	}
	out := make([]*node, len(ns))
	for i, n := range ns {
		cn, err := convertListItem(n, t)
		if err != nil {
			return nil, nil, bad(i, t, err)
		}
		out[i] = cn
	}
	return out, t, nil
}

// literalCommon widens t with a constant element that only the literal
// rules can convert.
func literalCommon(t *types.Type, n *node) (*types.Type, bool) {
	if !n.isConst {
		return nil, false
	}
	if s, ok := n.value.(string); ok && t.Kind.IsNumeric() {
		nt, ok := literalNumberType(s)
		if !ok {
			return t, true // reported when converting
		}
		return functions.CommonType(t, nt)
	}
	return t, true
}

func convertListItem(n *node, t *types.Type) (*node, error) {
	if n.typ.Equal(t) {
		return n, nil
	}
	if n.isConst {
		v, err := coerceLiteral(n.value, n.typ, t)
		if err != nil {
			return nil, err
		}
		return constNode(v, t), nil
	}
	return castNode(n, t)
}

// coerceLiteralStruct converts a constant struct field by field (exact
// names); target fields it lacks are NULL.
func coerceLiteralStruct(in *types.StructValue, to *types.Type) (any, error) {
	out := &types.StructValue{Type: to, Values: make([]any, len(to.Fields))}
	for i, f := range to.Fields {
		j := exactField(in.Type, f.Name)
		if j < 0 {
			continue
		}
		c, err := coerceLiteral(in.Values[j], in.Type.Fields[j].Type, f.Type)
		if err != nil {
			return nil, err
		}
		out.Values[i] = c
	}
	return out, nil
}

// structSuperset is the common type of STRUCTs in a list: the union of
// their fields (matched by exact name), shared fields widened. A constant
// item's fields may also follow the literal rules.
func structSuperset(t *types.Type, n *node) (*types.Type, bool) {
	if t.Kind != types.KindStruct || n.typ.Kind != types.KindStruct {
		return nil, false
	}
	fields := append([]types.Field{}, t.Fields...)
	for _, f := range n.typ.Fields {
		i := exactField(t, f.Name)
		if i < 0 {
			fields = append(fields, f)
			continue
		}
		common, ok := functions.CommonType(fields[i].Type, f.Type)
		if !ok && !n.isConst {
			return nil, false
		}
		if ok {
			fields[i].Type = common
		}
	}
	return types.StructOf(fields...), true
}
