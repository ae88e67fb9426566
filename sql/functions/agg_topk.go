package functions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// MaxTopKColumns is how many other columns TOPK can carry along with the
// sort column.
const MaxTopKColumns = 5

func topkDef() AggregateDef {
	d := AggregateDef{
		Name: "TOPK",
		Description: "Returns the k largest non-NULL values of the column, largest first, duplicates included. " +
			"With other columns, returns structs of the sort column (sort_col) and those columns (col0, col1, …) of the k rows with the largest sort values.",
		Overloads: []AggregateOverload{{Sig: "TOPK(T val, INTEGER k) ARRAY<T>", InitArgs: 1, New: newTopK}},
	}
	for n := 1; n <= MaxTopKColumns; n++ {
		params := []string{"T val"}
		for i := 0; i < n; i++ {
			params = append(params, fmt.Sprintf("V%d col%d", i, i))
		}
		d.Overloads = append(d.Overloads, AggregateOverload{
			Sig:      fmt.Sprintf("TOPK(%s, INTEGER k) ARRAY<STRUCT>", strings.Join(params, ", ")),
			InitArgs: 1,
			New:      newTopK,
		})
	}
	return d
}

func newTopK(args []*types.Type, init []any) (Aggregator, error) {
	if !isOrdered(args[0]) {
		return nil, fmt.Errorf("TOPK does not support values of type %s", args[0])
	}
	k, err := positiveInit(init, 0)
	if err != nil {
		return nil, err
	}
	cols := args[:len(args)-1]
	if len(cols) == 1 {
		return &topK{typ: types.ArrayOf(cols[0]), k: k}, nil
	}
	fields := []types.Field{{Name: "sort_col", Type: cols[0]}}
	for i, t := range cols[1:] {
		fields = append(fields, types.Field{Name: fmt.Sprintf("col%d", i), Type: t})
	}
	return &topK{typ: types.ArrayOf(types.StructOf(fields...)), k: k, structs: true}, nil
}

// topK is TOPK. State: the result array, largest first; with other
// columns, an array of STRUCT<sort_col T, col0 …>. Among equal sort
// values the earlier row comes first.
type topK struct {
	typ     *types.Type
	k       int
	structs bool
}

var _ Merger = (*topK)(nil)

func (t *topK) StateType() *types.Type  { return t.typ }
func (t *topK) ReturnType() *types.Type { return t.typ }
func (t *topK) Init() any               { return []any{} }

// sortKey returns the value a list element sorts by.
func (t *topK) sortKey(e any) any {
	if t.structs {
		return e.(*types.StructValue).Values[0]
	}
	return e
}

func (t *topK) compare(a, b any) int {
	c, _ := types.CompareValues(t.sortKey(a), t.sortKey(b))
	return c
}

func (t *topK) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	list, _ := acc.([]any)
	e := t.element(args)
	if len(list) == t.k && t.compare(e, list[len(list)-1]) <= 0 {
		return list, nil
	}
	out := appendCopy(list, e)
	if len(list) == t.k {
		out = append(out[:len(list)-1], e)
	}
	slices.SortStableFunc(out, func(a, b any) int { return t.compare(b, a) })
	return out, nil
}

func (t *topK) element(args []any) any {
	if !t.structs {
		return args[0]
	}
	return &types.StructValue{Type: t.typ.Elem, Values: slices.Clone(args)}
}

func (t *topK) Merge(x, y any) (any, error) {
	l1, _ := x.([]any)
	l2, _ := y.([]any)
	out := make([]any, 0, min(t.k, len(l1)+len(l2)))
	for len(out) < t.k && (len(l1) > 0 || len(l2) > 0) {
		if len(l2) == 0 || len(l1) > 0 && t.compare(l1[0], l2[0]) >= 0 {
			out, l1 = append(out, l1[0]), l1[1:]
		} else {
			out, l2 = append(out, l2[0]), l2[1:]
		}
	}
	return out, nil
}

func (t *topK) Result(acc any) (any, error) {
	list, _ := acc.([]any)
	return list, nil
}

func topkDistinctDef() AggregateDef {
	return AggregateDef{
		Name:        "TOPKDISTINCT",
		Description: "Returns the k largest distinct non-NULL values of the column, largest first.",
		Overloads: []AggregateOverload{{
			Sig: "TOPKDISTINCT(T val, INTEGER k) ARRAY<T>", InitArgs: 1,
			New: func(args []*types.Type, init []any) (Aggregator, error) {
				if !isOrdered(args[0]) {
					return nil, fmt.Errorf("TOPKDISTINCT does not support values of type %s", args[0])
				}
				k, err := positiveInit(init, 0)
				if err != nil {
					return nil, err
				}
				return &topKDistinct{topK{typ: types.ArrayOf(args[0]), k: k}}, nil
			},
		}},
	}
}

// topKDistinct is TOPKDISTINCT. State: ARRAY<T> of distinct values,
// largest first.
type topKDistinct struct{ topK }

var _ Merger = (*topKDistinct)(nil)

func (t *topKDistinct) Add(acc any, args []any) (any, error) {
	list, _ := acc.([]any)
	if args[0] == nil || containsValue(list, args[0]) {
		return list, nil
	}
	return t.topK.Add(list, args)
}

func (t *topKDistinct) Merge(x, y any) (any, error) {
	acc := x
	l2, _ := y.([]any)
	for _, v := range l2 {
		var err error
		if acc, err = t.Add(acc, []any{v}); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
