package expr

import (
	"github.com/sqlstream/sqlstream/sql/ast"
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
	be, ie := base.eval, idx.i64
	return &node{typ: base.typ.Elem, eval: func(row *types.Row, vars []any) (any, error) {
		b, err := be(row, vars)
		if b == nil || err != nil {
			return nil, err
		}
		i, ok, err := ie(row, vars)
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

func mapIndexNode(base, key *node) *node {
	be, ke := base.eval, key.eval
	return &node{typ: base.typ.Elem, eval: func(row *types.Row, vars []any) (any, error) {
		b, err := be(row, vars)
		if b == nil || err != nil {
			return nil, err
		}
		k, err := ke(row, vars)
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
	n := &node{typ: base.typ.Fields[i].Type, eval: func(row *types.Row, vars []any) (any, error) {
		b, err := be(row, vars)
		if b == nil || err != nil {
			return nil, err
		}
		return b.(*types.StructValue).Values[i], nil
	}}
	return fold(n, base), nil
}

func (c *compiler) arrayCtor(e *ast.ArrayCtor) (*node, error) {
	ns, err := c.compileAll(e.Elems)
	if err != nil {
		return nil, err
	}
	orig := ns
	ns, t, err := unifyList(ns, func(i int, want *types.Type, err error) error {
		if err != nil {
			return errAt(sqlerr.Type, e.Elems[i], "%s", err.Error())
		}
		return errAt(sqlerr.Type, e.Elems[i], "invalid input syntax for type %s: array elements must all have the same type, got %s", want, typeName(orig[i].typ))
	})
	if err != nil {
		return nil, err
	}
	evals := evalsOf(ns)
	n := &node{typ: types.ArrayOf(t), eval: func(row *types.Row, vars []any) (any, error) {
		return evalAll(evals, row, vars)
	}}
	return fold(n, ns...), nil
}

func evalsOf(ns []*node) []evalFn {
	out := make([]evalFn, len(ns))
	for i, n := range ns {
		out[i] = n.eval
	}
	return out
}

// evalAll evaluates each function into a new slice.
func evalAll(evals []evalFn, row *types.Row, vars []any) ([]any, error) {
	out := make([]any, len(evals))
	for i, ev := range evals {
		v, err := ev(row, vars)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (c *compiler) mapCtor(e *ast.MapCtor) (*node, error) {
	keys, err := c.compileAll(e.Keys)
	if err != nil {
		return nil, err
	}
	vals, err := c.compileAll(e.Values)
	if err != nil {
		return nil, err
	}
	for i, k := range keys {
		if kind := k.typ.Kind; kind != types.KindString && kind != types.KindUnknown {
			return nil, errAt(sqlerr.Unsupported, e.Keys[i], "map keys must be STRING, got %s", typeName(k.typ))
		}
	}
	orig := vals
	vals, vt, err := unifyList(vals, func(i int, want *types.Type, err error) error {
		if err != nil {
			return errAt(sqlerr.Type, e.Values[i], "%s", err.Error())
		}
		return errAt(sqlerr.Type, e.Values[i], "map values must all have the same type: expected %s, got %s", want, typeName(orig[i].typ))
	})
	if err != nil {
		return nil, err
	}
	ke, ve := evalsOf(keys), evalsOf(vals)
	n := &node{typ: types.MapOf(types.StringType, vt), eval: func(row *types.Row, vars []any) (any, error) {
		ks, err := evalAll(ke, row, vars)
		if err != nil {
			return nil, err
		}
		vs, err := evalAll(ve, row, vars)
		if err != nil {
			return nil, err
		}
		m := make(map[string]any, len(ks))
		for i, k := range ks {
			if k != nil {
				m[k.(string)] = vs[i]
			}
		}
		return m, nil
	}}
	return fold(n, append(keys, vals...)...), nil
}

func (c *compiler) structCtor(e *ast.StructCtor) (*node, error) {
	vals, err := c.compileAll(e.Values)
	if err != nil {
		return nil, err
	}
	fields := make([]types.Field, len(vals))
	for i, v := range vals {
		if v.typ.Kind == types.KindUnknown {
			return nil, errAt(sqlerr.Type, e.Values[i], "Can't infer a type of null for struct field '%s'. Please explicitly cast it, e.g. CAST(null AS VARCHAR)", e.Names[i])
		}
		fields[i] = types.Field{Name: e.Names[i], Type: v.typ}
	}
	t := types.StructOf(fields...)
	evals := evalsOf(vals)
	n := &node{typ: t, eval: func(row *types.Row, vars []any) (any, error) {
		vs, err := evalAll(evals, row, vars)
		if err != nil {
			return nil, err
		}
		return &types.StructValue{Type: t, Values: vs}, nil
	}}
	return fold(n, vals...), nil
}
