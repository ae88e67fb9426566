package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestTopKAggregates(t *testing.T) {
	k3 := []any{int32(3)}
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "topk integer", fn: "TOPK", args: ts(tInt, tInt), init: k3,
			ops:  []aggOp{addRow(int32(0)), addRow(int32(100)), addRow(int32(99)), addRow(int32(7)), addRow(int32(100)), addRow(nil)},
			want: strs("[0]", "[100, 0]", "[100, 99, 0]", "[100, 99, 7]", "[100, 100, 99]", "[100, 100, 99]")},
		{name: "topk string", fn: "TOPK", args: ts(tStr, tInt), init: k3,
			ops:  []aggOp{addRow("a"), addRow("b"), addRow("c"), addRow("b"), addRow("d")},
			want: strs(`["a"]`, `["b", "a"]`, `["c", "b", "a"]`, `["c", "b", "b"]`, `["d", "c", "b"]`)},
		{name: "topk integer struct (topk-group-by.json)", fn: "TOPK", args: ts(tInt, tStr, tInt), init: k3,
			ops: []aggOp{addRow(int32(0), "zero"), addRow(int32(100), "one"), addRow(int32(99), "two"),
				addRow(nil, "three"), addRow(int32(100), nil)},
			want: strs(`[{sort_col: 0, col0: "zero"}]`,
				`[{sort_col: 100, col0: "one"}, {sort_col: 0, col0: "zero"}]`,
				`[{sort_col: 100, col0: "one"}, {sort_col: 99, col0: "two"}, {sort_col: 0, col0: "zero"}]`,
				`[{sort_col: 100, col0: "one"}, {sort_col: 99, col0: "two"}, {sort_col: 0, col0: "zero"}]`,
				`[{sort_col: 100, col0: "one"}, {sort_col: 100, col0: null}, {sort_col: 99, col0: "two"}]`)},
		{name: "topk with two other columns", fn: "TOPK", args: ts(tDbl, tStr, tBig, tInt), init: []any{int32(1)},
			ops:  []aggOp{addRow(1.5, "a", int64(1)), addRow(2.5, "b", int64(2))},
			want: strs(`[{sort_col: 1.5, col0: "a", col1: 1}]`, `[{sort_col: 2.5, col0: "b", col1: 2}]`)},
		{name: "topkdistinct integer", fn: "TOPKDISTINCT", args: ts(tInt, tInt), init: k3,
			ops:  []aggOp{addRow(int32(0)), addRow(int32(100)), addRow(int32(99)), addRow(int32(7)), addRow(int32(100))},
			want: strs("[0]", "[100, 0]", "[100, 99, 0]", "[100, 99, 7]", "[100, 99, 7]")},
		{name: "topkdistinct decimal", fn: "TOPKDISTINCT", args: ts(types.DecimalOf(2, 1), tInt), init: k3,
			ops: []aggOp{addRow(aggDec("9.8")), addRow(aggDec("8.9")), addRow(nil), addRow(aggDec("7.8")),
				addRow(aggDec("6.5")), addRow(aggDec("9.9"))},
			want: strs("[9.8]", "[9.8, 8.9]", "[9.8, 8.9]", "[9.8, 8.9, 7.8]", "[9.8, 8.9, 7.8]", "[9.9, 9.8, 8.9]")},
		{name: "topkdistinct bytes", fn: "TOPKDISTINCT", args: ts(types.BytesType, tInt), init: k3,
			ops:  []aggOp{addRow([]byte("B")), addRow([]byte("F")), addRow([]byte("G")), addRow([]byte("A")), addRow([]byte("F"))},
			want: strs("[Qg==]", "[Rg==, Qg==]", "[Rw==, Rg==, Qg==]", "[Rw==, Rg==, Qg==]", "[Rw==, Rg==, Qg==]")},
	})
}

func TestTopKMergeAndTypes(t *testing.T) {
	reg := NewAggregates()
	topk, err := reg.Resolve("TOPK", ts(tInt, tStr, tInt), []any{int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	want := "ARRAY<STRUCT<`sort_col` INTEGER, `col0` STRING>>"
	if topk.StateType().String() != want || topk.ReturnType().String() != want {
		t.Errorf("types %s %s", topk.StateType(), topk.ReturnType())
	}
	a := accumulate(t, topk, []any{int32(5), "a"}, []any{int32(1), "b"})
	b := accumulate(t, topk, []any{int32(5), "c"}, []any{int32(3), "d"})
	m, _ := topk.(Merger).Merge(a, b)
	res, _ := topk.Result(m)
	if got := showAgg(res); got != `[{sort_col: 5, col0: "a"}, {sort_col: 5, col0: "c"}, {sort_col: 3, col0: "d"}]` {
		t.Errorf("TOPK merge = %s", got)
	}
	td, _ := reg.Resolve("TOPKDISTINCT", ts(tInt, tInt), []any{int32(2)})
	m, _ = td.(Merger).Merge(accumulate(t, td, []any{int32(5)}, []any{int32(1)}), accumulate(t, td, []any{int32(5)}, []any{int32(3)}))
	if res, _ := td.Result(m); showAgg(res) != "[5, 3]" {
		t.Errorf("TOPKDISTINCT merge = %s", showAgg(res))
	}
}

func TestTopKErrors(t *testing.T) {
	reg := NewAggregates()
	for _, c := range []struct {
		args []*types.Type
		init []any
		want string
	}{
		{ts(tInt, tInt), []any{int32(0)}, "Parameter 2 passed to function TOPK is invalid: must be a positive INTEGER, got 0"},
		{ts(tInt, tInt), nil, "Parameter 2 passed to function TOPK must be a literal constant"},
		{ts(types.ArrayOf(tInt), tInt), []any{int32(2)}, "TOPK does not support values of type ARRAY<INTEGER>"},
	} {
		if _, err := reg.Resolve("TOPK", c.args, c.init); err == nil || err.Error() != c.want {
			t.Errorf("TOPK%v %v: %v, want %s", c.args, c.init, err, c.want)
		}
	}
}
