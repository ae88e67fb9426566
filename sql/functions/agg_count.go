package functions

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"math"
	"slices"
	"sort"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// aggTypes carries an aggregator's state and result types.
type aggTypes struct{ state, ret *types.Type }

func (t aggTypes) StateType() *types.Type  { return t.state }
func (t aggTypes) ReturnType() *types.Type { return t.ret }

func countDef() AggregateDef {
	newCount := func(star bool) func([]*types.Type, []any) (Aggregator, error) {
		return func([]*types.Type, []any) (Aggregator, error) { return &countAgg{star: star}, nil }
	}
	return AggregateDef{
		Name:        "COUNT",
		Description: "Counts the number of rows. When col1 is specified, the count returned is the number of rows where col1 is non-null. When * is specified, the count returned is the total number of rows.",
		Overloads: []AggregateOverload{
			{Sig: "COUNT() BIGINT", New: newCount(true), Description: "Counts all rows."},
			{Sig: "COUNT(T val) BIGINT", New: newCount(false), Description: "Counts the rows where val is not NULL."},
		},
	}
}

// countAgg is COUNT(*) (star) or COUNT(col). State: BIGINT.
type countAgg struct{ star bool }

var (
	_ Undoer = (*countAgg)(nil)
	_ Merger = (*countAgg)(nil)
)

func (c *countAgg) StateType() *types.Type  { return types.BigintType }
func (c *countAgg) ReturnType() *types.Type { return types.BigintType }
func (c *countAgg) Init() any               { return int64(0) }

func (c *countAgg) counts(args []any) bool { return c.star || len(args) > 0 && args[0] != nil }

func (c *countAgg) Add(acc any, args []any) (any, error) {
	if !c.counts(args) {
		return acc, nil
	}
	return asInt64(acc) + 1, nil
}

func (c *countAgg) Undo(acc any, args []any) (any, error) {
	if !c.counts(args) {
		return acc, nil
	}
	return asInt64(acc) - 1, nil
}

func (c *countAgg) Merge(a, b any) (any, error) { return asInt64(a) + asInt64(b), nil }
func (c *countAgg) Result(acc any) (any, error) { return asInt64(acc), nil }

// asInt64 reads a BIGINT accumulator; a NULL one counts as 0.
func asInt64(v any) int64 {
	n, _ := v.(int64)
	return n
}

func countDistinctDef() AggregateDef {
	return AggregateDef{
		Name:        "COUNT_DISTINCT",
		Description: "Returns the number of distinct non-NULL values of col1. The state keeps one 64-bit hash per distinct value, so the count is exact up to hash collisions.",
		Overloads: []AggregateOverload{{
			Sig: "COUNT_DISTINCT(T val) BIGINT",
			New: func([]*types.Type, []any) (Aggregator, error) { return countDistinctAgg{}, nil },
		}},
	}
}

// countDistinctAgg keeps the sorted set of the 64-bit FNV-1a hashes of
// the distinct values seen. State: ARRAY<BIGINT>.
type countDistinctAgg struct{}

var _ Merger = countDistinctAgg{}

var hashSetType = types.ArrayOf(types.BigintType)

func (countDistinctAgg) StateType() *types.Type  { return hashSetType }
func (countDistinctAgg) ReturnType() *types.Type { return types.BigintType }
func (countDistinctAgg) Init() any               { return []any{} }

func (countDistinctAgg) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	set, _ := acc.([]any)
	h := valueHash(args[0])
	i, found := sort.Find(len(set), func(i int) int { return compareInt64(h, set[i].(int64)) })
	if found {
		return set, nil
	}
	return slices.Insert(slices.Clip(set), i, any(h)), nil
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (countDistinctAgg) Merge(a, b any) (any, error) {
	x, _ := a.([]any)
	y, _ := b.([]any)
	out := make([]any, 0, len(x)+len(y))
	for len(x) > 0 && len(y) > 0 {
		switch c := compareInt64(x[0].(int64), y[0].(int64)); {
		case c < 0:
			out, x = append(out, x[0]), x[1:]
		case c > 0:
			out, y = append(out, y[0]), y[1:]
		default:
			out, x, y = append(out, x[0]), x[1:], y[1:]
		}
	}
	return append(append(out, x...), y...), nil
}

func (countDistinctAgg) Result(acc any) (any, error) {
	set, _ := acc.([]any)
	return int64(len(set)), nil
}

// valueHash hashes a value of any SQL type so that equal values (as
// types.ValuesEqual sees them) hash alike. It is stable across processes:
// hashes are kept in state stores.
func valueHash(v any) int64 {
	h := fnv.New64a()
	writeValue(h, v)
	return int64(h.Sum64())
}

func writeValue(h hash.Hash64, v any) {
	var buf [9]byte
	num := func(tag byte, n uint64) {
		buf[0] = tag
		binary.BigEndian.PutUint64(buf[1:], n)
		h.Write(buf[:])
	}
	switch x := v.(type) {
	case nil:
		h.Write([]byte{0})
	case bool:
		num(1, boolBit(x))
	case int32:
		num(2, uint64(x))
	case int64:
		num(2, uint64(x))
	case float64:
		num(3, math.Float64bits(x))
	case *apd.Decimal:
		writeDecimal(h, x)
	case string:
		writeBytes(h, 5, []byte(x))
	case []byte:
		writeBytes(h, 6, x)
	case types.Timestamp:
		num(7, uint64(x))
	case types.Date:
		num(8, uint64(x))
	case types.Time:
		num(9, uint64(x))
	default:
		writeContainer(h, v)
	}
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func writeDecimal(h hash.Hash64, d *apd.Decimal) {
	var r apd.Decimal
	r.Reduce(d)
	writeBytes(h, 4, []byte(r.String()))
}

func writeBytes(h hash.Hash64, tag byte, b []byte) {
	var buf [9]byte
	buf[0] = tag
	binary.BigEndian.PutUint64(buf[1:], uint64(len(b)))
	h.Write(buf[:])
	h.Write(b)
}

func writeContainer(h hash.Hash64, v any) {
	switch x := v.(type) {
	case []any:
		writeBytes(h, 10, nil)
		for _, e := range x {
			writeValue(h, e)
		}
		h.Write([]byte{0xff})
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		writeBytes(h, 11, nil)
		for _, k := range keys {
			writeBytes(h, 5, []byte(k))
			writeValue(h, x[k])
		}
		h.Write([]byte{0xff})
	case *types.StructValue:
		writeBytes(h, 12, nil)
		if x != nil {
			for _, e := range x.Values {
				writeValue(h, e)
			}
		}
		h.Write([]byte{0xff})
	}
}
