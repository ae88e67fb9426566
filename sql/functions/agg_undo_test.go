package functions

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestUndoInvertsAdd checks, for every aggregate that can aggregate a
// table, that adding a row and undoing it again yields the same result as
// never adding it, from many random accumulators. Floating-point results
// may differ in the last bits (ksqlDB's do too), so they compare with a
// relative tolerance. Collections stay below their caps, where undo is
// exact.
func TestUndoInvertsAdd(t *testing.T) {
	reg := NewAggregates()
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		fn   string
		args []*types.Type
		gen  func() []any
	}{
		{"COUNT", nil, func() []any { return nil }},
		{"ATTR", ts(tStr), func() []any { return []any{maybeNull(rng, smallString(rng))} }},
		{"COUNT", ts(tStr), func() []any { return []any{maybeNull(rng, smallString(rng))} }},
		{"SUM", ts(tInt), func() []any { return []any{maybeNull(rng, int32(rng.Int32()))} }},
		{"SUM", ts(tBig), func() []any { return []any{maybeNull(rng, rng.Int64())} }},
		{"SUM", ts(tDbl), func() []any { return []any{maybeNull(rng, rng.NormFloat64()*1e3)} }},
		{"SUM", ts(types.DecimalOf(9, 2)), func() []any { return []any{maybeNull(rng, smallDecimal(rng))} }},
		{"SUM_LIST", ts(types.ArrayOf(tBig)), func() []any {
			return []any{maybeNull(rng, []any{rng.Int64N(100), nil, rng.Int64N(100)})}
		}},
		{"AVG", ts(tInt), func() []any { return []any{maybeNull(rng, rng.Int32N(1000)-500)} }},
		{"AVG", ts(tDbl), func() []any { return []any{maybeNull(rng, rng.NormFloat64())} }},
		{"COLLECT_LIST", ts(tStr), func() []any { return []any{maybeNull(rng, smallString(rng))} }},
		{"HISTOGRAM", ts(tStr), func() []any { return []any{maybeNull(rng, smallString(rng))} }},
		{"STDDEV_SAMP", ts(tInt), func() []any { return []any{maybeNull(rng, rng.Int32N(100))} }},
		{"STDDEV_SAMP", ts(tDbl), func() []any { return []any{maybeNull(rng, rng.NormFloat64()*10)} }},
		{"STDDEV_SAMPLE", ts(tBig), func() []any { return []any{maybeNull(rng, rng.Int64N(1000))} }},
		{"CORRELATION", ts(tDbl, tDbl), func() []any {
			return []any{maybeNull(rng, rng.NormFloat64()), maybeNull(rng, rng.NormFloat64())}
		}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.fn, c.args), func(t *testing.T) {
			agg, err := reg.Resolve(c.fn, c.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			u := agg.(Undoer)
			acc := agg.Init()
			for i := 0; i < 200; i++ {
				x := c.gen()
				added, err := agg.Add(acc, x)
				if err != nil {
					t.Fatal(err)
				}
				back, err := u.Undo(added, x)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := agg.Result(acc)
				got, _ := agg.Result(back)
				if !closeValues(got, want) {
					t.Fatalf("step %d: add then undo %v gave %s, want %s", i, x, showAgg(got), showAgg(want))
				}
				if acc, err = agg.Add(acc, c.gen()); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func maybeNull(rng *rand.Rand, v any) any {
	if rng.IntN(8) == 0 {
		return nil
	}
	return v
}

func smallString(rng *rand.Rand) string { return strconv.Itoa(rng.IntN(20)) }

func smallDecimal(rng *rand.Rand) any {
	return aggDec(fmt.Sprintf("%d.%02d", rng.IntN(1000)-500, rng.IntN(100)))
}

// closeValues compares results exactly, except doubles, which may differ
// by rounding.
func closeValues(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	if !ok1 || !ok2 {
		return showAgg(a) == showAgg(b)
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return math.Abs(x-y) <= 1e-9*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
}
