package functions

import (
	"fmt"
	"maps"

	"github.com/sqlstream/sqlstream/sql/types"
)

func (a *Aggregates) collectListDef() AggregateDef {
	limit := a.cfg.collectListLimit
	return AggregateDef{
		Name: "COLLECT_LIST",
		Description: "Returns an array containing all the values of the column from each input row, NULLs included. " +
			fmt.Sprintf("Values beyond the limit (ksql.functions.collect_list.limit, here %s) are ignored.", limitText(limit)),
		Overloads: []AggregateOverload{{
			Sig: "COLLECT_LIST(T val) ARRAY<T>",
			New: func(args []*types.Type, _ []any) (Aggregator, error) {
				return &collectList{typ: types.ArrayOf(args[0]), limit: limit}, nil
			},
		}},
	}
}

func limitText(n int) string {
	if n == int(^uint(0)>>1) {
		return "none"
	}
	return fmt.Sprint(n)
}

// collectList is COLLECT_LIST. State: ARRAY<T>. Undo removes the last
// occurrence of the value, as ksqlDB does.
type collectList struct {
	typ   *types.Type
	limit int
}

var (
	_ Undoer = (*collectList)(nil)
	_ Merger = (*collectList)(nil)
)

func (c *collectList) StateType() *types.Type  { return c.typ }
func (c *collectList) ReturnType() *types.Type { return c.typ }
func (c *collectList) Init() any               { return []any{} }

func (c *collectList) Add(acc any, args []any) (any, error) {
	list, _ := acc.([]any)
	if len(list) >= c.limit {
		return list, nil
	}
	return appendCopy(list, args[0]), nil
}

// appendCopy appends v to a copy of list, leaving list untouched.
func appendCopy(list []any, v ...any) []any {
	return append(append(make([]any, 0, len(list)+len(v)), list...), v...)
}

func (c *collectList) Undo(acc any, args []any) (any, error) {
	list, _ := acc.([]any)
	for i := len(list) - 1; i >= 0; i-- {
		if sameValue(list[i], args[0]) {
			return appendCopy(list[:i], list[i+1:]...), nil
		}
	}
	return list, nil
}

// sameValue is SQL value equality where NULL equals NULL.
func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return types.ValuesEqual(a, b)
}

func (c *collectList) Merge(x, y any) (any, error) {
	l1, _ := x.([]any)
	l2, _ := y.([]any)
	room := max(c.limit-len(l1), 0)
	return appendCopy(l1, l2[:min(room, len(l2))]...), nil
}

func (c *collectList) Result(acc any) (any, error) {
	list, _ := acc.([]any)
	return list, nil
}

func (a *Aggregates) collectSetDef() AggregateDef {
	limit := a.cfg.collectSetLimit
	return AggregateDef{
		Name: "COLLECT_SET",
		Description: "Returns an array containing the distinct values of the column from each input row, NULL included, in first-seen order. " +
			fmt.Sprintf("Values beyond the limit (ksql.functions.collect_set.limit, here %s) are ignored.", limitText(limit)),
		Overloads: []AggregateOverload{{
			Sig: "COLLECT_SET(T val) ARRAY<T>",
			New: func(args []*types.Type, _ []any) (Aggregator, error) {
				return &collectSet{typ: types.ArrayOf(args[0]), limit: limit}, nil
			},
		}},
	}
}

// collectSet is COLLECT_SET. State: ARRAY<T> of distinct values.
type collectSet struct {
	typ   *types.Type
	limit int
}

var _ Merger = (*collectSet)(nil)

func (c *collectSet) StateType() *types.Type  { return c.typ }
func (c *collectSet) ReturnType() *types.Type { return c.typ }
func (c *collectSet) Init() any               { return []any{} }

func (c *collectSet) Add(acc any, args []any) (any, error) {
	list, _ := acc.([]any)
	if len(list) >= c.limit || containsValue(list, args[0]) {
		return list, nil
	}
	return appendCopy(list, args[0]), nil
}

func containsValue(list []any, v any) bool {
	for _, e := range list {
		if sameValue(e, v) {
			return true
		}
	}
	return false
}

func (c *collectSet) Merge(x, y any) (any, error) {
	acc := x
	l2, _ := y.([]any)
	for _, v := range l2 {
		acc, _ = c.Add(acc, []any{v})
	}
	return acc, nil
}

func (c *collectSet) Result(acc any) (any, error) {
	list, _ := acc.([]any)
	return list, nil
}

// HistogramLimit caps the distinct values HISTOGRAM counts.
const HistogramLimit = 1000

func histogramDef() AggregateDef {
	return AggregateDef{
		Name: "HISTOGRAM",
		Description: "Returns a map of each distinct non-NULL string of the column to the number of times it occurs. " +
			"The map holds at most 1000 entries; further values are ignored.",
		Overloads: []AggregateOverload{{
			Sig: "HISTOGRAM(STRING val) MAP<STRING, BIGINT>",
			New: func([]*types.Type, []any) (Aggregator, error) { return histogramAgg{}, nil },
		}},
	}
}

// histogramAgg is HISTOGRAM. State: MAP<STRING, BIGINT>. A SQL map
// cannot hold a NULL key, so NULLs are not counted.
type histogramAgg struct{}

var (
	_ Undoer = histogramAgg{}
	_ Merger = histogramAgg{}
)

var histogramType = types.MapOf(types.StringType, types.BigintType)

func (histogramAgg) StateType() *types.Type  { return histogramType }
func (histogramAgg) ReturnType() *types.Type { return histogramType }
func (histogramAgg) Init() any               { return map[string]any{} }

func (h histogramAgg) Add(acc any, args []any) (any, error) {
	return h.bump(acc, args[0], 1), nil
}

func (h histogramAgg) Undo(acc any, args []any) (any, error) {
	return h.bump(acc, args[0], -1), nil
}

// bump returns acc with delta added to the count of key v. Counts that
// reach zero are removed; new keys beyond the limit are ignored. The map
// is copied only when it changes.
func (histogramAgg) bump(acc, v any, delta int64) map[string]any {
	m, _ := acc.(map[string]any)
	key, ok := v.(string)
	if !ok || !histogramTakes(m, key, delta) {
		return m
	}
	out := maps.Clone(m)
	if out == nil {
		out = map[string]any{}
	}
	histogramBump(out, key, delta)
	return out
}

// histogramTakes reports whether adding delta to key changes m.
func histogramTakes(m map[string]any, key string, delta int64) bool {
	_, present := m[key]
	return present || delta > 0 && len(m) < HistogramLimit
}

// histogramBump adds delta to key's count in m itself.
func histogramBump(m map[string]any, key string, delta int64) {
	if !histogramTakes(m, key, delta) {
		return
	}
	if n := asInt64(m[key]) + delta; n > 0 {
		m[key] = n
	} else {
		delete(m, key)
	}
}

func (histogramAgg) Merge(x, y any) (any, error) {
	m1, _ := x.(map[string]any)
	m2, _ := y.(map[string]any)
	out := make(map[string]any, len(m1)+len(m2))
	maps.Copy(out, m1)
	for k, c := range m2 {
		histogramBump(out, k, asInt64(c))
	}
	return out, nil
}

func (histogramAgg) Result(acc any) (any, error) {
	m, _ := acc.(map[string]any)
	return m, nil
}
