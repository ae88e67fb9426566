package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// subscript compiles arr[i] (1-based, negative counts from the end, out of
// range is NULL) and map[key] (a missing key is NULL).
func (c *compiler) subscript(e *ast.Subscript) (*node, error) {
	base, err := c.compile(e.Base)
	if err != nil {
		return nil, err
	}
	idx, err := c.compile(e.Index)
	if err != nil {
		return nil, err
	}
	switch base.typ.Kind {
	case types.KindArray:
		if k := idx.typ.Kind; k != types.KindInteger && k != types.KindBigint && k != types.KindUnknown {
			return nil, errAt(sqlerr.Type, e.Index, "array index must be INTEGER or BIGINT, got %s", typeName(idx.typ))
		}
		if n := splitPartNode(base, idx); n != nil {
			if c.share != nil {
				c.share.retract(base)
			}
			return n, nil
		}
		return fold(arrayIndexNode(base, idx), base, idx), nil
	case types.KindMap:
		key, err := implicitNode(idx, base.typ.Key)
		if err != nil {
			return nil, errAt(sqlerr.Type, e.Index, "map key must be %s, got %s", base.typ.Key, typeName(idx.typ))
		}
		return fold(mapIndexNode(base, key), base, key), nil
	}
	return nil, errAt(sqlerr.Type, e, "cannot subscript %s of type %s", describe(e.Base), typeName(base.typ))
}

func arrayIndexNode(base, idx *node) *node {
	be, ie := base.eval, asInt(idx)
	return &node{typ: base.typ.Elem, eval: func(row *types.Row, env *evalEnv) (any, error) {
		b, err := be(row, env)
		if b == nil || err != nil {
			return nil, err
		}
		i, ok, err := ie(row, env)
		if !ok || err != nil {
			return nil, err
		}
		arr := b.([]any)
		if i < 0 {
			i += int64(len(arr)) + 1
		}
		if i < 1 || i > int64(len(arr)) {
			return nil, nil
		}
		return arr[i-1], nil
	}}
}

// splitPartNode is SPLIT(s, d)[i] (STRING) as one scan for the part,
// without the array of every part (q22 takes three parts of a URL), or
// nil when base is not such a call. It evaluates s, d and i in the order
// and with the NULL rules of the call and the subscript; a constant SPLIT
// is left to folding.
func splitPartNode(base, idx *node) *node {
	if base.call == nil || base.call.name != "SPLIT" || len(base.call.args) != 2 || base.isConst ||
		!base.typ.Equal(types.ArrayOf(types.StringType)) {
		return nil
	}
	s, d := base.call.args[0], base.call.args[1]
	if s.typ.Kind != types.KindString || d.typ.Kind != types.KindString {
		return nil
	}
	se, de, ie := s.eval, d.eval, asInt(idx)
	return &node{typ: types.StringType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		sv, err := se(row, env)
		if sv == nil || err != nil {
			return nil, err
		}
		dv, err := de(row, env)
		if dv == nil || err != nil {
			return nil, err
		}
		i, ok, err := ie(row, env)
		if !ok || err != nil {
			return nil, err
		}
		if part, ok := functions.SplitPart(sv.(string), dv.(string), i); ok {
			return part, nil
		}
		return nil, nil
	}}
}

func mapIndexNode(base, key *node) *node {
	be, ke := base.eval, key.eval
	return &node{typ: base.typ.Elem, eval: func(row *types.Row, env *evalEnv) (any, error) {
		b, err := be(row, env)
		if b == nil || err != nil {
			return nil, err
		}
		k, err := ke(row, env)
		if k == nil || err != nil {
			return nil, err
		}
		return b.(map[string]any)[k.(string)], nil
	}}
}

// dereference compiles s->field; a NULL struct gives NULL.
func (c *compiler) dereference(e *ast.Dereference) (*node, error) {
	base, err := c.compile(e.Base)
	if err != nil {
		return nil, err
	}
	if base.typ.Kind != types.KindStruct {
		return nil, errAt(sqlerr.Type, e, "cannot dereference %s of type %s; only STRUCTs have fields", describe(e.Base), typeName(base.typ))
	}
	i := base.typ.Field(e.Field)
	if i < 0 {
		return nil, errAt(sqlerr.Unknown, e, "Could not find field '%s' in '%s'", e.Field, describe(e.Base))
	}
	be := base.eval
	n := &node{typ: base.typ.Fields[i].Type, eval: func(row *types.Row, env *evalEnv) (any, error) {
		b, err := be(row, env)
		if b == nil || err != nil {
			return nil, err
		}
		return b.(*types.StructValue).Values[i], nil
	}}
	return fold(n, base), nil
}

func (c *compiler) arrayCtor(e *ast.ArrayCtor) (*node, error) {
	if len(e.Elems) == 0 {
		return nil, errAt(sqlerr.Semantic, e, "Array constructor cannot be empty. Please supply at least one element (see https://github.com/confluentinc/ksql/issues/4239).")
	}
	ns, err := c.compileAll(e.Elems)
	if err != nil {
		return nil, err
	}
	ns, t, err := c.unifyItems(e.Elems, ns, "array elements")
	if err != nil {
		return nil, err
	}
	if t.Kind == types.KindUnknown {
		return nil, errAt(sqlerr.Semantic, e, "Cannot construct an array with all NULL elements (see https://github.com/confluentinc/ksql/issues/4239). As a workaround, you may cast a NULL value to the desired type.")
	}
	evals := evalsOf(ns)
	n := &node{typ: types.ArrayOf(t), eval: func(row *types.Row, env *evalEnv) (any, error) {
		return evalAll(evals, row, env)
	}}
	return fold(n, ns...), nil
}

// unifyItems converts constructor items to their common type (see
// unifyList), reporting errors at the offending item.
func (c *compiler) unifyItems(exprs []ast.Expr, ns []*node, what string) ([]*node, *types.Type, error) {
	orig := ns
	return unifyList(ns, func(i int, want *types.Type, err error) error {
		if err != nil {
			return errAt(sqlerr.Type, exprs[i], "%s", err.Error())
		}
		return errAt(sqlerr.Type, exprs[i], "%s must all have the same type: expected %s, got %s", what, want, typeName(orig[i].typ))
	})
}

func evalsOf(ns []*node) []evalFn {
	out := make([]evalFn, len(ns))
	for i, n := range ns {
		out[i] = n.eval
	}
	return out
}

// evalAll evaluates each function into a new slice.
func evalAll(evals []evalFn, row *types.Row, env *evalEnv) ([]any, error) {
	out := make([]any, len(evals))
	for i, ev := range evals {
		v, err := ev(row, env)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (c *compiler) mapCtor(e *ast.MapCtor) (*node, error) {
	if len(e.Keys) == 0 {
		return nil, errAt(sqlerr.Semantic, e, "Map constructor cannot be empty. Please supply at least one key value pair (see https://github.com/confluentinc/ksql/issues/4239).")
	}
	keys, kt, err := c.mapItems(e.Keys, "map keys")
	if err != nil {
		return nil, err
	}
	vals, vt, err := c.mapItems(e.Values, "map values")
	if err != nil {
		return nil, err
	}
	switch {
	case kt.Kind == types.KindUnknown:
		return nil, errAt(sqlerr.Semantic, e, "Cannot construct a map with all NULL keys")
	case vt.Kind == types.KindUnknown:
		return nil, errAt(sqlerr.Semantic, e, "Cannot construct a map with all NULL values")
	case kt.Kind != types.KindString:
		return nil, errAt(sqlerr.Unsupported, e.Keys[0], "map keys must be STRING, got %s", kt)
	}
	n := &node{typ: types.MapOf(kt, vt), eval: mapEval(evalsOf(keys), evalsOf(vals))}
	return fold(n, append(keys, vals...)...), nil
}

func (c *compiler) mapItems(exprs []ast.Expr, what string) ([]*node, *types.Type, error) {
	ns, err := c.compileAll(exprs)
	if err != nil {
		return nil, nil, err
	}
	return c.unifyItems(exprs, ns, what)
}

// mapEval builds the map; a NULL key is stored as "null", as Java's
// HashMap serializes it.
func mapEval(ke, ve []evalFn) evalFn {
	return func(row *types.Row, env *evalEnv) (any, error) {
		ks, err := evalAll(ke, row, env)
		if err != nil {
			return nil, err
		}
		vs, err := evalAll(ve, row, env)
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, len(ks))
		for i, k := range ks {
			key, ok := k.(string)
			if !ok {
				key = "null"
			}
			m[key] = vs[i]
		}
		return m, nil
	}
}

func (c *compiler) structCtor(e *ast.StructCtor) (*node, error) {
	vals, err := c.compileAll(e.Values)
	if err != nil {
		return nil, err
	}
	fields := make([]types.Field, len(vals))
	seen := map[string]bool{}
	for i, v := range vals {
		if seen[e.Names[i]] {
			return nil, errAt(sqlerr.Semantic, e.Values[i], "Duplicate field names found in STRUCT")
		}
		seen[e.Names[i]] = true
		if v.typ.Kind == types.KindUnknown {
			return nil, errAt(sqlerr.Type, e.Values[i], "Can't infer a type of null for struct field '%s'. Please explicitly cast it, e.g. CAST(null AS VARCHAR)", e.Names[i])
		}
		fields[i] = types.Field{Name: e.Names[i], Type: v.typ}
	}
	t := types.StructOf(fields...)
	evals := evalsOf(vals)
	n := &node{typ: t, eval: func(row *types.Row, env *evalEnv) (any, error) {
		vs, err := evalAll(evals, row, env)
		if err != nil {
			return nil, err
		}
		return &types.StructValue{Type: t, Values: vs}, nil
	}}
	return fold(n, vals...), nil
}
