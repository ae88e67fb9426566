package functions

import (
	"slices"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestCountAggregates(t *testing.T) {
	st := types.StructOf(types.Field{Name: "A", Type: tInt})
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "count star counts every row", fn: "COUNT", args: nil,
			ops:  []aggOp{addRow(), addRow(), undoRow(), addRow()},
			want: strs("1", "2", "1", "2")},
		{name: "count col skips nulls", fn: "COUNT", args: ts(tStr),
			ops:  []aggOp{addRow("a"), addRow(nil), addRow("b"), undoRow(nil), undoRow("a")},
			want: strs("1", "1", "2", "2", "1")},
		{name: "count distinct (count-distinct.json)", fn: "COUNT_DISTINCT", args: ts(tStr),
			ops:  []aggOp{addRow("one"), addRow("two"), addRow("one"), addRow("two"), addRow(nil)},
			want: strs("1", "2", "2", "2", "2")},
		{name: "count distinct decimals by value", fn: "COUNT_DISTINCT", args: ts(types.DecimalOf(4, 2)),
			ops:  []aggOp{addRow(aggDec("1.50")), addRow(aggDec("1.5")), addRow(aggDec("-1.50"))},
			want: strs("1", "1", "2")},
		{name: "count distinct structs and arrays", fn: "COUNT_DISTINCT", args: ts(types.ArrayOf(st)),
			ops: []aggOp{
				addRow([]any{&types.StructValue{Type: st, Values: []any{int32(1)}}}),
				addRow([]any{&types.StructValue{Type: st, Values: []any{int32(1)}}}),
				addRow([]any{&types.StructValue{Type: st, Values: []any{nil}}}),
				addRow([]any{}),
			},
			want: strs("1", "1", "2", "3")},
	})
}

func TestCountMerge(t *testing.T) {
	reg := NewAggregates()
	count, _ := reg.Resolve("COUNT", nil, nil)
	m, _ := count.(Merger).Merge(accumulate(t, count, nil, nil), accumulate(t, count, nil))
	if res, _ := count.Result(m); res != int64(3) {
		t.Errorf("COUNT merge = %v, want 3", res)
	}
	cd, _ := reg.Resolve("COUNT_DISTINCT", ts(tInt), nil)
	a := accumulate(t, cd, []any{int32(1)}, []any{int32(2)}, []any{int32(3)})
	b := accumulate(t, cd, []any{int32(3)}, []any{int32(4)})
	m, _ = cd.(Merger).Merge(a, b)
	if res, _ := cd.Result(m); res != int64(4) {
		t.Errorf("COUNT_DISTINCT merge = %v, want 4", res)
	}
	if _, ok := cd.(Undoer); ok {
		t.Errorf("COUNT_DISTINCT must not undo (stream only in ksqlDB)")
	}
}

func TestCountDistinctExactThenSketch(t *testing.T) {
	cd, _ := NewAggregates().Resolve("COUNT_DISTINCT", ts(tBig), nil)
	if want := "STRUCT<`HASHES` ARRAY<BIGINT>, `REGISTERS` BYTES, `EXACT` BYTES>"; cd.StateType().String() != want {
		t.Fatalf("state type %s", cd.StateType())
	}
	acc := cd.Init()
	for i := int64(0); i < distinctExactLimit; i++ {
		acc, _ = cd.Add(acc, []any{i})
		acc, _ = cd.Add(acc, []any{i})
	}
	hashes, regs := countDistinctAgg{}.parts(acc)
	if res, _ := cd.Result(acc); res != int64(distinctExactLimit) || regs != nil || len(hashes) != 8*distinctExactLimit {
		t.Fatalf("exact phase: %v distinct, %d bytes of hashes, sketch %t", res, len(hashes), regs != nil)
	}
	for i := 1; i < len(hashes)/8; i++ {
		if exactHash(hashes, i-1) >= exactHash(hashes, i) {
			t.Fatalf("hashes not strictly ascending at %d", i)
		}
	}
	const n = 50000
	half := cd.Init()
	for i := int64(distinctExactLimit); i < n; i++ {
		acc, _ = cd.Add(acc, []any{i})
		if i%2 == 0 {
			half, _ = cd.Add(half, []any{i})
		}
	}
	if _, regs := (countDistinctAgg{}).parts(acc); len(regs) != hllRegisters {
		t.Fatalf("no sketch after %d values", n)
	}
	res, _ := cd.Result(acc)
	if got := res.(int64); got < n*98/100 || got > n*102/100 {
		t.Errorf("estimate %d for %d distinct values", got, n)
	}
	m, _ := cd.(Merger).Merge(half, acc)
	if res2, _ := cd.Result(m); res2 != res {
		t.Errorf("merging a subset changed the estimate: %v, was %v", res2, res)
	}
}

// TestCountDistinctSparseSketch: past the exact phase the registers are
// kept sparse (3 bytes per register set) until a quarter are set, then
// dense; either form gives the estimate the other gives for the same
// registers, and a dense state merges with a sparse one.
func TestCountDistinctSparseSketch(t *testing.T) {
	cd, _ := NewAggregates().Resolve("COUNT_DISTINCT", ts(tBig), nil)
	c := countDistinctAgg{}
	acc := cd.Init()
	i := int64(0)
	for ; i <= distinctExactLimit; i++ {
		acc, _ = cd.Add(acc, []any{i})
	}
	_, regs := c.parts(acc)
	if hllDense(regs) || len(regs)%3 != 0 || len(regs)/3 > distinctExactLimit+1 {
		t.Fatalf("after %d values: %d bytes of registers, want sparse", i, len(regs))
	}
	sparse := acc
	for ; i < 20000; i++ {
		acc, _ = cd.Add(acc, []any{i})
		if _, regs := c.parts(acc); !hllDense(regs) {
			sparse = acc
		}
	}
	for _, a := range []any{sparse, acc} {
		_, regs := c.parts(a)
		dense := regs
		if !hllDense(regs) {
			dense = hllExpand(regs)
			if !slices.Equal(hllCompact(dense), regs) {
				t.Fatalf("expanding and compacting changed the sparse registers")
			}
		}
		if got, want := hllEstimate(regs), hllEstimate(dense); got != want {
			t.Errorf("sparse estimate %d, dense %d", got, want)
		}
	}
	_, regs = c.parts(acc)
	_, last := c.parts(sparse)
	if !hllDense(regs) || len(last)/3 != hllSparseLimit {
		t.Fatalf("dense %t after 20000 values; the last sparse form had %d registers", hllDense(regs), len(last)/3)
	}
	if res, _ := cd.Result(acc); res.(int64) < 19600 || res.(int64) > 20400 {
		t.Errorf("estimate %v for 20000 distinct values", res)
	}
	m, _ := cd.(Merger).Merge(sparse, acc)
	if got, want := mustResult(t, cd, m), mustResult(t, cd, acc); got != want {
		t.Errorf("merging a subset (sparse) into dense: %v, want %v", got, want)
	}
}

func mustResult(t *testing.T, a Aggregator, acc any) any {
	t.Helper()
	r, err := a.Result(acc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCountDistinctLegacyState: a state stored when the exact set was an
// ARRAY<BIGINT> of hashes (HASHES, no EXACT) counts on from that set.
func TestCountDistinctLegacyState(t *testing.T) {
	cd, _ := NewAggregates().Resolve("COUNT_DISTINCT", ts(tStr), nil)
	hashes := []any{valueHash("a"), valueHash("b")}
	slices.SortFunc(hashes, func(x, y any) int { return compareInt64(x.(int64), y.(int64)) })
	old := &types.StructValue{Type: types.StructOf(countDistinctState.Fields[:2]...), Values: []any{hashes, nil}}
	acc := old
	for _, v := range []string{"a", "c", "b", "c"} {
		next, err := cd.Add(acc, []any{v})
		if err != nil {
			t.Fatal(err)
		}
		acc = next.(*types.StructValue)
	}
	if got := mustResult(t, cd, acc); got != int64(3) {
		t.Errorf("legacy {a, b} plus a, c, b, c: %v distinct, want 3", got)
	}
	if got := mustResult(t, cd, old); got != int64(2) {
		t.Errorf("legacy {a, b}: %v distinct, want 2", got)
	}
}

// TestCountAndSumResultsUnboxed: COUNT's and SUM's results are their
// accumulators as they are, not boxed again (an allocation per update
// past the runtime's boxed small integers); a NULL accumulator is 0.
func TestCountAndSumResultsUnboxed(t *testing.T) {
	reg := NewAggregates()
	count, _ := reg.Resolve("COUNT", nil, nil)
	sumBig, _ := reg.Resolve("SUM", ts(types.BigintType), nil)
	sumDouble, _ := reg.Resolve("SUM", ts(types.DoubleType), nil)
	for _, c := range []struct {
		agg       Aggregator
		acc, zero any
	}{{count, int64(1000), int64(0)}, {sumBig, int64(1 << 40), int64(0)}, {sumDouble, 2.5, 0.0}} {
		if res, err := c.agg.Result(c.acc); err != nil || res != c.acc {
			t.Errorf("%T.Result(%v) = %v, %v", c.agg, c.acc, res, err)
		}
		if res, _ := c.agg.Result(nil); res != c.zero {
			t.Errorf("%T.Result(nil) = %#v, want %#v", c.agg, res, c.zero)
		}
		acc := c.acc
		if n := testing.AllocsPerRun(100, func() { _, _ = c.agg.Result(acc) }); n != 0 {
			t.Errorf("%T.Result allocates %.0f times, want 0", c.agg, n)
		}
	}
}
