package functions

import (
	"errors"
	"fmt"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// lambdaDefs are TRANSFORM, FILTER and REDUCE. Their lambda arguments
// arrive as Lambda values; a lambda's error is the call's error.
func lambdaDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "TRANSFORM", Category: CatLambda,
			Description: "Apply a function to each element in an array or each key/value pair in a map. " +
				"Transforming a map requires two functions: one for the keys and one for the values.",
			Overloads: []Overload{
				{Sig: "TRANSFORM(ARRAY<T> array, LAMBDA<T, U> function) ARRAY<U>", Fn: transformArray},
				{Sig: "TRANSFORM(MAP<STRING, V> map, LAMBDA<STRING, V, STRING> keyFunction, LAMBDA<STRING, V, V1> valueFunction) MAP<STRING, V1>",
					Fn: transformMap},
			}},
		{Name: "FILTER", Category: CatLambda,
			Description: "Filter the elements of an array or the entries of a map with a predicate: an element " +
				"is kept when the predicate returns true.",
			Overloads: []Overload{
				{Sig: "FILTER(ARRAY<T> array, LAMBDA<T, BOOLEAN> predicate) ARRAY<T>", Fn: filterArray},
				{Sig: "FILTER(MAP<STRING, V> map, LAMBDA<STRING, V, BOOLEAN> predicate) MAP<STRING, V>", Fn: filterMap},
			}},
		{Name: "REDUCE", Category: CatLambda,
			Description: "Reduce an array or a map to a single value, starting from an initial state and applying " +
				"the function to the state and each element (or key and value) in turn. Returns NULL if the " +
				"initial state is NULL, and the initial state if the array or map is NULL.",
			Overloads: []Overload{
				{Sig: "REDUCE(ARRAY<T> array, S initialState, LAMBDA<S, T, S> function) S", Fn: reduceArray, NullAware: true},
				{Sig: "REDUCE(MAP<STRING, V> map, S initialState, LAMBDA<S, STRING, V, S> function) S", Fn: reduceMap, NullAware: true},
			}},
	}
}

func transformArray(args []any) (any, error) {
	in, fn := args[0].([]any), args[1].(Lambda)
	out := make([]any, len(in))
	for i, e := range in {
		v, err := fn(e)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// transformMap builds the new map as ksqlDB's Collectors.toMap does: a
// NULL key or value, or two entries mapping to the same key, is an error.
func transformMap(args []any) (any, error) {
	in, keyFn, valueFn := args[0].(map[string]any), args[1].(Lambda), args[2].(Lambda)
	out := make(map[string]any, len(in))
	for _, k := range java.HashMapOrder(in) {
		nk, err := keyFn(k, in[k])
		if err != nil {
			return nil, err
		}
		nv, err := valueFn(k, in[k])
		if err != nil {
			return nil, err
		}
		key, ok := nk.(string)
		if !ok || nv == nil {
			return nil, fmt.Errorf("TRANSFORM: the map entry for key %q became a NULL key or value", k)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("TRANSFORM: duplicate key %q in the transformed map", key)
		}
		out[key] = nv
	}
	return out, nil
}

// accepts calls a FILTER predicate. A NULL result is an error, as in
// ksqlDB (whose comparisons yield false, not NULL, for NULL operands, so
// this takes a NULL boolean column or CAST).
func accepts(pred Lambda, args ...any) (bool, error) {
	v, err := pred(args...)
	if err != nil {
		return false, err
	}
	if v == nil {
		return false, errors.New("FILTER: the predicate returned NULL")
	}
	return v.(bool), nil
}

func filterArray(args []any) (any, error) {
	in, pred := args[0].([]any), args[1].(Lambda)
	out := []any{}
	for _, e := range in {
		keep, err := accepts(pred, e)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, e)
		}
	}
	return out, nil
}

// filterMap keeps the entries the predicate accepts; like ksqlDB's
// Collectors.toMap, a kept entry with a NULL value is an error.
func filterMap(args []any) (any, error) {
	in, pred := args[0].(map[string]any), args[1].(Lambda)
	out := map[string]any{}
	for _, k := range java.HashMapOrder(in) {
		keep, err := accepts(pred, k, in[k])
		switch {
		case err != nil:
			return nil, err
		case !keep:
		case in[k] == nil:
			return nil, fmt.Errorf("FILTER: the kept map entry %q has a NULL value", k)
		default:
			out[k] = in[k]
		}
	}
	return out, nil
}

func reduceArray(args []any) (any, error) {
	state := args[1]
	in, ok := args[0].([]any)
	if state == nil || !ok {
		return state, nil
	}
	fn := args[2].(Lambda)
	for _, e := range in {
		var err error
		if state, err = fn(state, e); err != nil {
			return nil, err
		}
	}
	return state, nil
}

func reduceMap(args []any) (any, error) {
	state := args[1]
	in, ok := args[0].(map[string]any)
	if state == nil || !ok {
		return state, nil
	}
	fn := args[2].(Lambda)
	for _, k := range java.HashMapOrder(in) {
		var err error
		if state, err = fn(state, k, in[k]); err != nil {
			return nil, err
		}
	}
	return state, nil
}
