package functions

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// arrayDefs are the ARRAY functions. Set-like functions compare elements
// with valueKey (NULL is an element like any other) and keep the order of
// first appearance.
func arrayDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "ARRAY_CONTAINS", Category: CatArray,
			Description: "Returns true if the array is non-null and contains the supplied value.",
			Overloads:   []Overload{{Sig: "ARRAY_CONTAINS(ARRAY<T> array, T val) BOOLEAN", Fn: arrayContains, NullAware: true}}},
		{Name: "ARRAY_DISTINCT", Category: CatArray,
			Description: "Returns an array of all the distinct values, including NULL if present, from the input " +
				"array. The output array elements are in order of their first occurrence in the input. " +
				"Returns NULL if the input array is NULL.",
			Overloads: []Overload{{Sig: "ARRAY_DISTINCT(ARRAY<T> input) ARRAY<T>", Fn: arrayDistinct}}},
		{Name: "ARRAY_EXCEPT", Category: CatArray,
			Description: "Returns an array of all the elements in an array except for those also present in a " +
				"second array. The order of entries in the first array is preserved although any duplicates " +
				"are removed. Returns NULL if either input is NULL.",
			Overloads: []Overload{{Sig: "ARRAY_EXCEPT(ARRAY<T> left, ARRAY<T> right) ARRAY<T>", Fn: arrayExcept}}},
		{Name: "ARRAY_INTERSECT", Category: CatArray,
			Description: "Returns an array of all the distinct elements from the intersection of both input arrays, " +
				"in the order they appear in the first array. Returns NULL if either input is NULL.",
			Overloads: []Overload{{Sig: "ARRAY_INTERSECT(ARRAY<T> left, ARRAY<T> right) ARRAY<T>", Fn: arrayIntersect}}},
		{Name: "ARRAY_UNION", Category: CatArray,
			Description: "Returns an array of all the distinct elements from both input arrays, in the order they " +
				"are encountered. Returns NULL if either input is NULL.",
			Overloads: []Overload{{Sig: "ARRAY_UNION(ARRAY<T> left, ARRAY<T> right) ARRAY<T>", Fn: arrayUnion}}},
		{Name: "ARRAY_CONCAT", Category: CatArray,
			Description: "Concatenates two arrays, creating an array that contains all the elements in the first " +
				"array followed by all the elements in the second array. Returns NULL if both input arrays are " +
				"NULL. If only one argument is NULL, the result is the other argument.",
			Overloads: []Overload{{Sig: "ARRAY_CONCAT(ARRAY<T> left, ARRAY<T> right) ARRAY<T>", Fn: arrayConcat, NullAware: true}}},
		{Name: "ARRAY_JOIN", Category: CatArray,
			Description: "Joins the array elements into a flat string representation, using ',' or the given " +
				"delimiter (a NULL delimiter joins without one). NULL elements are written as 'null'. Only " +
				"arrays of BOOLEAN, INT, BIGINT, DOUBLE, DECIMAL and STRING are supported.",
			Overloads: []Overload{
				{Sig: "ARRAY_JOIN(ARRAY<T> array) STRING", Fn: arrayJoin},
				{Sig: "ARRAY_JOIN(ARRAY<T> array, STRING delimiter) STRING", Fn: arrayJoin, NullAware: true},
			}},
		{Name: "ARRAY_LENGTH", Category: CatArray,
			Description: "Returns the number of elements in the array. Returns NULL if the array is NULL.",
			Overloads:   []Overload{{Sig: "ARRAY_LENGTH(ARRAY<T> array) INTEGER", Fn: arrayLength}}},
		{Name: "ARRAY_MAX", Category: CatArray,
			Description: "Return the maximum value from within an array of primitive values, according to their " +
				"natural sort order. If the array is NULL, or contains only NULLs, return NULL.",
			Overloads: []Overload{{Sig: "ARRAY_MAX(ARRAY<T> input) T", Fn: arrayMax}}},
		{Name: "ARRAY_MIN", Category: CatArray,
			Description: "Return the minimum value from within an array of primitive values, according to their " +
				"natural sort order. If the array is NULL, or contains only NULLs, return NULL.",
			Overloads: []Overload{{Sig: "ARRAY_MIN(ARRAY<T> input) T", Fn: arrayMin}}},
		{Name: "ARRAY_REMOVE", Category: CatArray,
			Description: "Removes all the elements equal to a specific value from an array (a NULL value removes " +
				"the NULL elements). Returns NULL if the input array is NULL.",
			Overloads: []Overload{{Sig: "ARRAY_REMOVE(ARRAY<T> array, T victim) ARRAY<T>", Fn: arrayRemove, NullAware: true}}},
		{Name: "ARRAY_SORT", Category: CatArray,
			Description: "Sort an array of primitive values, according to their natural sort order, ascending " +
				"unless the direction is 'DESC'/'DESCENDING'. Any NULLs in the array will be placed at the end. " +
				"An unknown direction returns NULL.",
			Overloads: []Overload{
				{Sig: "ARRAY_SORT(ARRAY<T> input) ARRAY<T>", Fn: arraySort},
				{Sig: "ARRAY_SORT(ARRAY<T> input, STRING direction) ARRAY<T>", Fn: arraySort},
			}},
		{Name: "SLICE", Category: CatArray,
			Description: "Returns the elements of the array from position 'from' to position 'to' inclusive " +
				"(1-based; a NULL bound means the start or the end). Returns NULL when the bounds are out of range.",
			Overloads: []Overload{{Sig: "SLICE(ARRAY<T> in, INTEGER from, INTEGER to) ARRAY<T>", Fn: arraySlice, NullAware: true}}},
		{Name: "GENERATE_SERIES", Category: CatArray,
			Description: "Construct an array of a range of values, from start to end inclusive, with an optional step.",
			Overloads: []Overload{
				{Sig: "GENERATE_SERIES(INTEGER start, INTEGER end) ARRAY<INTEGER>", Fn: generateSeriesInt},
				{Sig: "GENERATE_SERIES(INTEGER start, INTEGER end, INTEGER step) ARRAY<INTEGER>", Fn: generateSeriesInt},
				{Sig: "GENERATE_SERIES(BIGINT start, BIGINT end) ARRAY<BIGINT>", Fn: generateSeriesBigint},
				{Sig: "GENERATE_SERIES(BIGINT start, BIGINT end, INTEGER step) ARRAY<BIGINT>", Fn: generateSeriesBigint},
			}},
	}
}

func arrayContains(args []any) (any, error) {
	arr, ok := args[0].([]any)
	if !ok {
		return false, nil
	}
	key := valueKey(args[1])
	return slices.ContainsFunc(arr, func(e any) bool { return valueKey(e) == key }), nil
}

// valueSet is an insertion-ordered set of values.
type valueSet struct {
	seen  map[string]bool
	items []any
}

func newValueSet(n int) *valueSet { return &valueSet{seen: make(map[string]bool, n), items: []any{}} }

func (s *valueSet) add(v any) {
	if k := valueKey(v); !s.seen[k] {
		s.seen[k] = true
		s.items = append(s.items, v)
	}
}

func (s *valueSet) has(v any) bool { return s.seen[valueKey(v)] }

func valueSetOf(arr []any) *valueSet {
	s := newValueSet(len(arr))
	for _, e := range arr {
		s.add(e)
	}
	return s
}

func arrayDistinct(args []any) (any, error) {
	return valueSetOf(args[0].([]any)).items, nil
}

func arrayExcept(args []any) (any, error) {
	right := valueSetOf(args[1].([]any))
	out := []any{}
	for _, e := range valueSetOf(args[0].([]any)).items {
		if !right.has(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

func arrayIntersect(args []any) (any, error) {
	right := valueSetOf(args[1].([]any))
	out := []any{}
	for _, e := range valueSetOf(args[0].([]any)).items {
		if right.has(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

func arrayUnion(args []any) (any, error) {
	s := valueSetOf(args[0].([]any))
	for _, e := range args[1].([]any) {
		s.add(e)
	}
	return s.items, nil
}

func arrayConcat(args []any) (any, error) {
	left, lok := args[0].([]any)
	right, rok := args[1].([]any)
	if !lok && !rok {
		return nil, nil
	}
	if n := len(left) + len(right); n > maxSeriesLength {
		// A REDUCE concatenating its accumulator with itself doubles it
		// per element; stop it before it takes the server's memory.
		return nil, fmt.Errorf("ARRAY_CONCAT would return %d elements, more than the limit of %d", n, maxSeriesLength)
	}
	return slices.Concat([]any{}, left, right), nil
}

func arrayJoin(args []any) (any, error) {
	arr, ok := args[0].([]any)
	if !ok {
		return nil, nil
	}
	delim := ","
	if len(args) > 1 {
		delim, _ = args[1].(string)
	}
	parts := make([]string, len(arr))
	for i, e := range arr {
		s, ok := java.ToString(e)
		if !ok {
			return nil, fmt.Errorf("ARRAY_JOIN: elements of Go type %T are not supported", e)
		}
		parts[i] = s
	}
	return strings.Join(parts, delim), nil
}

func arrayLength(args []any) (any, error) {
	return int32(len(args[0].([]any))), nil
}

func arrayMax(args []any) (any, error) { return arrayExtreme(args[0].([]any), 1) }

func arrayMin(args []any) (any, error) { return arrayExtreme(args[0].([]any), -1) }

// arrayExtreme returns the non-NULL element e with compare(e, others)
// having the sign want for all others; the first one wins ties.
func arrayExtreme(arr []any, want int) (any, error) {
	var best any
	for _, e := range arr {
		if e == nil {
			continue
		}
		if best == nil {
			best = e
			continue
		}
		c, err := compareElems(e, best)
		if err != nil {
			return nil, err
		}
		if c*want > 0 {
			best = e
		}
	}
	return best, nil
}

func arrayRemove(args []any) (any, error) {
	arr, ok := args[0].([]any)
	if !ok {
		return nil, nil
	}
	victim := valueKey(args[1])
	out := []any{}
	for _, e := range arr {
		if valueKey(e) != victim {
			out = append(out, e)
		}
	}
	return out, nil
}

func arraySort(args []any) (any, error) {
	dir := 1
	if len(args) > 1 {
		switch strings.ToUpper(args[1].(string)) {
		case "ASC", "ASCENDING":
		case "DESC", "DESCENDING":
			dir = -1
		default:
			return nil, nil
		}
	}
	out := slices.Clone(args[0].([]any))
	var err error
	slices.SortStableFunc(out, func(a, b any) int {
		c, e := compareNullsLast(a, b, dir)
		err = errors.Join(err, e)
		return c
	})
	return out, err
}

// compareNullsLast orders non-NULL values in direction dir, NULLs last.
func compareNullsLast(a, b any, dir int) (int, error) {
	switch {
	case a == nil && b == nil:
		return 0, nil
	case a == nil:
		return 1, nil
	case b == nil:
		return -1, nil
	}
	c, err := compareElems(a, b)
	return c * dir, err
}

// compareElems orders two non-NULL elements with types.CompareValues;
// arrays, maps and structs have no order.
func compareElems(a, b any) (int, error) {
	if c, ok := types.CompareValues(a, b); ok {
		return c, nil
	}
	return 0, fmt.Errorf("values of Go type %T have no natural order", a)
}

// arraySlice returns in[from-1 : to], NULL when the bounds are out of range.
func arraySlice(args []any) (any, error) {
	in, ok := args[0].([]any)
	if !ok {
		return nil, nil
	}
	start, end := 0, len(in)
	if from, ok := args[1].(int32); ok {
		start = int(from) - 1
	}
	if to, ok := args[2].(int32); ok {
		end = int(to)
	}
	if start < 0 || end > len(in) || start > end {
		return nil, nil
	}
	return slices.Clone(in[start:end]), nil
}

// maxSeriesLength bounds the arrays GENERATE_SERIES and ARRAY_CONCAT
// build so that a typo (or a doubling REDUCE) cannot exhaust the server's
// memory.
const maxSeriesLength = 1 << 22

func generateSeriesInt(args []any) (any, error) {
	step := int64(0)
	if len(args) > 2 {
		step = int64(args[2].(int32))
	}
	vals, err := seriesInt64(int64(args[0].(int32)), int64(args[1].(int32)), step, len(args) > 2)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = int32(v)
	}
	return out, nil
}

func generateSeriesBigint(args []any) (any, error) {
	step := int64(0)
	if len(args) > 2 {
		step = int64(args[2].(int32))
	}
	vals, err := seriesInt64(args[0].(int64), args[1].(int64), step, len(args) > 2)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v
	}
	return out, nil
}

// seriesInt64 lists start, start+step, … up to end inclusive. Without an
// explicit step it counts by 1 towards end.
func seriesInt64(start, end, step int64, explicit bool) ([]int64, error) {
	diff := end - start
	if !explicit {
		step = map[bool]int64{true: 1, false: -1}[diff > 0]
	}
	if step == 0 {
		return nil, errors.New("GENERATE_SERIES step cannot be zero")
	}
	if diff > 0 && step < 0 || diff < 0 && step > 0 {
		return nil, errors.New("GENERATE_SERIES step has wrong sign")
	}
	size := 1 + diff/step
	if size > maxSeriesLength {
		return nil, fmt.Errorf("GENERATE_SERIES would return %d elements, more than the limit of %d", size, maxSeriesLength)
	}
	out := make([]int64, size)
	for i := range out {
		out[i] = start + int64(i)*step
	}
	return out, nil
}
