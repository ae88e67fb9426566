package functions

import (
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/sqlstream/sqlstream/sql/types"
)

// COUNT_DISTINCT counts exactly while a group has few distinct values and
// switches to a HyperLogLog sketch, as ksqlDB's (2^14 registers, about
// 0.8% standard error), when it has many:
//
//	HASHES   sorted 64-bit hashes of the values seen   (exact phase)
//	   │ more than distinctExactLimit
//	   ▼
//	REGISTERS 2^14 bytes, the max rank per register    (sketch phase)
//
// State: STRUCT<HASHES ARRAY<BIGINT>, REGISTERS BYTES>, one of the two
// NULL.
const (
	distinctExactLimit = 1024
	hllPrecision       = 14
	hllRegisters       = 1 << hllPrecision
)

func countDistinctDef() AggregateDef {
	return AggregateDef{
		Name: "COUNT_DISTINCT",
		Description: "Returns the number of distinct non-NULL values of the column. Exact up to 1024 distinct values; " +
			"beyond, a HyperLogLog estimate with a typical accuracy (standard error) of less than 1%.",
		Overloads: []AggregateOverload{{
			Sig: "COUNT_DISTINCT(T val) BIGINT",
			New: func([]*types.Type, []any) (Aggregator, error) { return countDistinctAgg{}, nil },
		}},
	}
}

type countDistinctAgg struct{}

var _ Merger = countDistinctAgg{}

var countDistinctState = types.StructOf(
	types.Field{Name: "HASHES", Type: types.ArrayOf(types.BigintType)},
	types.Field{Name: "REGISTERS", Type: types.BytesType})

func (countDistinctAgg) StateType() *types.Type  { return countDistinctState }
func (countDistinctAgg) ReturnType() *types.Type { return types.BigintType }
func (c countDistinctAgg) Init() any             { return c.exact([]any{}) }

func (countDistinctAgg) exact(hashes []any) *types.StructValue {
	return &types.StructValue{Type: countDistinctState, Values: []any{hashes, nil}}
}

func (countDistinctAgg) sketch(regs []byte) *types.StructValue {
	return &types.StructValue{Type: countDistinctState, Values: []any{nil, regs}}
}

// parts returns the exact hashes or the registers of an accumulator.
func (countDistinctAgg) parts(acc any) ([]any, []byte) {
	s, ok := acc.(*types.StructValue)
	if !ok || s == nil {
		return nil, nil
	}
	hashes, _ := s.Values[0].([]any)
	regs, _ := s.Values[1].([]byte)
	return hashes, regs
}

func (c countDistinctAgg) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	h := valueHash(args[0])
	hashes, regs := c.parts(acc)
	if regs != nil {
		if !hllNeedsUpdate(regs, h) {
			return acc, nil
		}
		regs = slices.Clone(regs)
		hllAdd(regs, h)
		return c.sketch(regs), nil
	}
	i, found := sort.Find(len(hashes), func(i int) int { return compareInt64(h, hashes[i].(int64)) })
	if found {
		return acc, nil
	}
	return c.settle(slices.Insert(slices.Clip(hashes), i, any(h))), nil
}

// settle turns an exact set that grew too large into a sketch.
func (c countDistinctAgg) settle(hashes []any) *types.StructValue {
	if len(hashes) <= distinctExactLimit {
		return c.exact(hashes)
	}
	regs := make([]byte, hllRegisters)
	for _, h := range hashes {
		hllAdd(regs, h.(int64))
	}
	return c.sketch(regs)
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

func (c countDistinctAgg) Merge(a, b any) (any, error) {
	h1, r1 := c.parts(a)
	h2, r2 := c.parts(b)
	if r1 == nil && r2 == nil {
		return c.settle(unionSorted(h1, h2)), nil
	}
	regs := make([]byte, hllRegisters)
	for _, r := range [][]byte{r1, r2} {
		for i, v := range r {
			regs[i] = max(regs[i], v)
		}
	}
	for _, h := range append(slices.Clip(h1), h2...) {
		hllAdd(regs, h.(int64))
	}
	return c.sketch(regs), nil
}

// unionSorted merges two sorted hash sets.
func unionSorted(x, y []any) []any {
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
	return append(append(out, x...), y...)
}

func (c countDistinctAgg) Result(acc any) (any, error) {
	hashes, regs := c.parts(acc)
	if regs == nil {
		return int64(len(hashes)), nil
	}
	return hllEstimate(regs), nil
}

// hllSlot returns the register of hash h and the rank it observes: the
// position of the first 1 bit after the register bits.
func hllSlot(h int64) (int, byte) {
	u := uint64(h)
	rest := u<<hllPrecision | 1<<(hllPrecision-1)
	return int(u >> (64 - hllPrecision)), byte(bits.LeadingZeros64(rest) + 1)
}

func hllNeedsUpdate(regs []byte, h int64) bool {
	i, r := hllSlot(h)
	return r > regs[i]
}

func hllAdd(regs []byte, h int64) {
	i, r := hllSlot(h)
	regs[i] = max(regs[i], r)
}

// hllEstimate is the HyperLogLog estimate with linear counting for small
// cardinalities (64-bit hashes need no large-range correction).
func hllEstimate(regs []byte) int64 {
	m := float64(len(regs))
	sum, zeros := 0.0, 0
	for _, r := range regs {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int64(math.Round(e))
}
