package functions

import (
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

func TestCountDistinctStateIsSortedHashes(t *testing.T) {
	cd, _ := NewAggregates().Resolve("COUNT_DISTINCT", ts(tStr), nil)
	acc := accumulate(t, cd, []any{"x"}, []any{"y"}, []any{"z"}, []any{"x"})
	set := acc.([]any)
	if len(set) != 3 || cd.StateType().String() != "ARRAY<BIGINT>" {
		t.Fatalf("state %v of type %s", set, cd.StateType())
	}
	for i := 1; i < len(set); i++ {
		if set[i-1].(int64) >= set[i].(int64) {
			t.Errorf("hashes not strictly ascending: %v", set)
		}
	}
}
