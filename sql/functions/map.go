package functions

import (
	"maps"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// mapDefs are the MAP functions. Functions that turn a map into a
// sequence (MAP_KEYS, MAP_VALUES, unsorted ENTRIES, REDUCE) follow ksqlDB's
// java.util.HashMap iteration order (see java.HashMapOrder).
func mapDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "AS_MAP", Category: CatMap,
			Description: "Construct a map from a list of keys and a list of values: the value of the i-th key " +
				"is the i-th value, or NULL when there are fewer values. NULL keys are skipped.",
			Overloads: []Overload{{Sig: "AS_MAP(ARRAY<STRING> keys, ARRAY<T> values) MAP<STRING, T>", Fn: asMap}}},
		{Name: "MAP_KEYS", Category: CatMap,
			Description: "Returns an array that contains all of the keys from the specified map. " +
				"Returns NULL if the input map is NULL.",
			Overloads: []Overload{{Sig: "MAP_KEYS(MAP<STRING, T> input) ARRAY<STRING>", Fn: mapKeys}}},
		{Name: "MAP_VALUES", Category: CatMap,
			Description: "Returns an array that contains all of the values from the specified map. " +
				"Returns NULL if the input map is NULL.",
			Overloads: []Overload{{Sig: "MAP_VALUES(MAP<STRING, T> input) ARRAY<T>", Fn: mapValues}}},
		{Name: "MAP_UNION", Category: CatMap,
			Description: "Returns a new map containing the union of all entries from both input maps. If a key is " +
				"present in both input maps then the value from map2 is the one which appears in the result. " +
				"Returns NULL if all of the input maps are NULL.",
			Overloads: []Overload{{Sig: "MAP_UNION(MAP<STRING, T> map1, MAP<STRING, T> map2) MAP<STRING, T>", Fn: mapUnion, NullAware: true}}},
		{Name: "ENTRIES", Category: CatMap,
			Description: "Construct an array from the entries in a map. The array can be optionally sorted on the keys.",
			Overloads:   entriesOverloads()},
		{Name: "SPLIT_TO_MAP", Category: CatString,
			Description: "Splits a string into key-value pairs and creates a map from them. The 'entryDelimiter' " +
				"splits the string into key-value pairs which are then split by 'kvDelimiter'. If the same key is " +
				"present multiple times in the input, the latest value for that key is returned. Returns NULL if " +
				"the input text or either of the delimiters is NULL or empty, or the delimiters are equal.",
			Overloads: []Overload{{
				Sig: "SPLIT_TO_MAP(STRING input, STRING entryDelimiter, STRING kvDelimiter) MAP<STRING, STRING>",
				Fn:  splitToMap,
			}}},
	}
}

func asMap(args []any) (any, error) {
	keys, values := args[0].([]any), args[1].([]any)
	out := make(map[string]any, len(keys))
	for i, k := range keys {
		key, ok := k.(string)
		if !ok {
			continue
		}
		var v any
		if i < len(values) {
			v = values[i]
		}
		out[key] = v
	}
	return out, nil
}

// sortedMapKeys returns m's keys in Java string order.
func sortedMapKeys(m map[string]any) []string {
	return slices.SortedFunc(maps.Keys(m), types.CompareStrings)
}

func mapKeys(args []any) (any, error) {
	keys := java.HashMapOrder(args[0].(map[string]any))
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out, nil
}

func mapValues(args []any) (any, error) {
	m := args[0].(map[string]any)
	keys := java.HashMapOrder(m)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out, nil
}

func mapUnion(args []any) (any, error) {
	m1, ok1 := args[0].(map[string]any)
	m2, ok2 := args[1].(map[string]any)
	if !ok1 && !ok2 {
		return nil, nil
	}
	out := make(map[string]any, len(m1)+len(m2))
	maps.Copy(out, m1)
	maps.Copy(out, m2)
	return out, nil
}

// entriesOverloads declares ENTRIES for the value types ksqlDB supports.
func entriesOverloads() []Overload {
	var out []Overload
	for _, t := range []*types.Type{types.IntegerType, types.BigintType, types.DoubleType, types.BooleanType, types.StringType} {
		st := types.StructOf(types.Field{Name: "K", Type: types.StringType}, types.Field{Name: "V", Type: t})
		out = append(out, Overload{
			Sig: "ENTRIES(MAP<STRING, " + t.String() + "> map, BOOLEAN sorted) ARRAY<STRUCT<K STRING, V " + t.String() + ">>",
			Fn: func(args []any) (any, error) {
				return mapEntries(args[0].(map[string]any), args[1].(bool), st), nil
			},
		})
	}
	return out
}

func mapEntries(m map[string]any, sorted bool, st *types.Type) []any {
	keys := java.HashMapOrder(m)
	if sorted {
		keys = sortedMapKeys(m)
	}
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = &types.StructValue{Type: st, Values: []any{k, m[k]}}
	}
	return out
}

// splitToMap follows Guava's splitters as ksqlDB uses them: empty entries
// are dropped, entries without kvDelimiter are skipped, and an entry with
// several kvDelimiters maps its first part to its second.
func splitToMap(args []any) (any, error) {
	input, entryDelim, kvDelim := args[0].(string), args[1].(string), args[2].(string)
	if entryDelim == "" || kvDelim == "" || entryDelim == kvDelim {
		return nil, nil
	}
	out := map[string]any{}
	for _, entry := range strings.Split(input, entryDelim) {
		if entry == "" || !strings.Contains(entry, kvDelim) {
			continue
		}
		parts := strings.SplitN(entry, kvDelim, 3)
		out[parts[0]] = parts[1]
	}
	return out, nil
}
