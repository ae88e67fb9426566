package functions

import (
	"fmt"
	"sort"

	"github.com/sqlstream/sqlstream/sql/types"
)

// byOffsetDef defines LATEST_BY_OFFSET (latest) or EARLIEST_BY_OFFSET.
// Each row gets a sequence number from the registry; the accumulator
// keeps the value(s) with the highest (latest) or lowest sequence
// numbers, which is what session merges compare.
func (a *Aggregates) byOffsetDef(name string, latest bool) AggregateDef {
	which := "earliest"
	if latest {
		which = "latest"
	}
	one := func(ignore func([]any) bool) func([]*types.Type, []any) (Aggregator, error) {
		return func(args []*types.Type, init []any) (Aggregator, error) {
			return newByOffsetOne(a, args[0], latest, ignore(init)), nil
		}
	}
	many := func(ignore func([]any) bool) func([]*types.Type, []any) (Aggregator, error) {
		return func(args []*types.Type, init []any) (Aggregator, error) {
			n, err := positiveInit(init, 0)
			if err != nil {
				return nil, err
			}
			return newByOffsetN(a, args[0], latest, ignore(init), n), nil
		}
	}
	always := func([]any) bool { return true }
	return AggregateDef{
		Name: name,
		Description: fmt.Sprintf("Returns the %s value of the column, by the order rows were read. "+
			"NULLs are ignored unless ignoreNulls is false; with n, returns the %s n values as an array.", which, which),
		Overloads: []AggregateOverload{
			{Sig: name + "(T val) T", New: one(always)},
			{Sig: name + "(T val, BOOLEAN ignoreNulls) T", InitArgs: 1, New: one(boolInit(0))},
			{Sig: name + "(T val, INTEGER n) ARRAY<T>", InitArgs: 1, New: many(always)},
			{Sig: name + "(T val, INTEGER n, BOOLEAN ignoreNulls) ARRAY<T>", InitArgs: 2, New: many(boolInit(1))},
		},
	}
}

// boolInit reads init argument i as ignoreNulls: NULL means true.
func boolInit(i int) func([]any) bool {
	return func(init []any) bool {
		b, ok := init[i].(bool)
		return !ok || b
	}
}

// positiveInit reads init argument i as a positive INTEGER.
func positiveInit(init []any, i int) (int, error) {
	var n int64
	switch x := init[i].(type) {
	case int32:
		n = int64(x)
	case int64:
		n = x
	default:
		return 0, &InitArgError{Index: i + 1, Reason: "must be a positive INTEGER literal"}
	}
	if n <= 0 || n > 1<<31-1 {
		return 0, &InitArgError{Index: i + 1, Reason: fmt.Sprintf("must be a positive INTEGER, got %d", n)}
	}
	return int(n), nil
}

// offsetEntryType is STRUCT<SEQ BIGINT, VAL T>.
func offsetEntryType(t *types.Type) *types.Type {
	return types.StructOf(types.Field{Name: "SEQ", Type: types.BigintType}, types.Field{Name: "VAL", Type: t})
}

func entrySeq(v any) int64 { return asInt64(v.(*types.StructValue).Values[0]) }

// byOffsetOne keeps one value. State: STRUCT<SEQ BIGINT, VAL T>, NULL
// before the first value is kept.
type byOffsetOne struct {
	reg         *Aggregates
	typ, state  *types.Type
	latest      bool
	ignoreNulls bool
}

var _ Merger = (*byOffsetOne)(nil)

func newByOffsetOne(reg *Aggregates, t *types.Type, latest, ignore bool) *byOffsetOne {
	return &byOffsetOne{reg: reg, typ: t, state: offsetEntryType(t), latest: latest, ignoreNulls: ignore}
}

func (b *byOffsetOne) StateType() *types.Type  { return b.state }
func (b *byOffsetOne) ReturnType() *types.Type { return b.typ }
func (b *byOffsetOne) Init() any               { return nil }

func (b *byOffsetOne) Add(acc any, args []any) (any, error) {
	if args[0] == nil && b.ignoreNulls || !b.latest && isEntry(acc) {
		return acc, nil
	}
	return newOffsetEntry(b.state, b.reg.nextSeq(), args[0]), nil
}

// offsetEntry is an entry's struct and its values in one allocation: a
// LATEST_BY_OFFSET makes one entry per update (Nexmark q18 makes five a
// record), and a struct with its own values slice was two.
type offsetEntry struct {
	s    types.StructValue
	vals [2]any
}

// newOffsetEntry is the entry STRUCT<SEQ, VAL> of type t.
func newOffsetEntry(t *types.Type, seq int64, val any) *types.StructValue {
	e := &offsetEntry{vals: [2]any{seq, val}}
	e.s = types.StructValue{Type: t, Values: e.vals[:]}
	return &e.s
}

func isEntry(v any) bool {
	s, ok := v.(*types.StructValue)
	return ok && s != nil
}

func (b *byOffsetOne) Merge(x, y any) (any, error) {
	switch {
	case !isEntry(x):
		return y, nil
	case !isEntry(y):
		return x, nil
	}
	if (entrySeq(y) > entrySeq(x)) == b.latest {
		return y, nil
	}
	return x, nil
}

func (b *byOffsetOne) Result(acc any) (any, error) {
	if !isEntry(acc) {
		return nil, nil
	}
	return acc.(*types.StructValue).Values[1], nil
}

// byOffsetN keeps n values in sequence order. State:
// ARRAY<STRUCT<SEQ BIGINT, VAL T>>.
type byOffsetN struct {
	byOffsetOne
	n int
}

var _ Merger = (*byOffsetN)(nil)

func newByOffsetN(reg *Aggregates, t *types.Type, latest, ignore bool, n int) *byOffsetN {
	one := newByOffsetOne(reg, t, latest, ignore)
	one.state = types.ArrayOf(one.state)
	return &byOffsetN{byOffsetOne: *one, n: n}
}

func (b *byOffsetN) ReturnType() *types.Type { return types.ArrayOf(b.typ) }
func (b *byOffsetN) Init() any               { return []any{} }

func (b *byOffsetN) Add(acc any, args []any) (any, error) {
	list, _ := acc.([]any)
	if args[0] == nil && b.ignoreNulls || !b.latest && len(list) >= b.n {
		return acc, nil
	}
	e := newOffsetEntry(b.state.Elem, b.reg.nextSeq(), args[0])
	return b.keep(append(append(make([]any, 0, len(list)+1), list...), e)), nil
}

// keep trims a list in sequence order to the n latest or earliest.
func (b *byOffsetN) keep(list []any) []any {
	if len(list) <= b.n {
		return list
	}
	if b.latest {
		return list[len(list)-b.n:]
	}
	return list[:b.n]
}

func (b *byOffsetN) Merge(x, y any) (any, error) {
	l1, _ := x.([]any)
	l2, _ := y.([]any)
	all := append(append(make([]any, 0, len(l1)+len(l2)), l1...), l2...)
	sort.SliceStable(all, func(i, j int) bool { return entrySeq(all[i]) < entrySeq(all[j]) })
	return b.keep(all), nil
}

func (b *byOffsetN) Result(acc any) (any, error) {
	list, _ := acc.([]any)
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = e.(*types.StructValue).Values[1]
	}
	return out, nil
}
