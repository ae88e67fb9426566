package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestCollectAggregates(t *testing.T) {
	d := types.DecimalOf(4, 1)
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "collect_list keeps nulls and order", fn: "COLLECT_LIST", args: ts(d),
			ops:  []aggOp{addRow(aggDec("500.9")), addRow(aggDec("300.8")), addRow(nil), addRow(aggDec("300.8")), addRow(nil)},
			want: strs("[500.9]", "[500.9, 300.8]", "[500.9, 300.8, null]", "[500.9, 300.8, null, 300.8]", "[500.9, 300.8, null, 300.8, null]")},
		{name: "collect_list on a table undoes the last occurrence", fn: "COLLECT_LIST", args: ts(tInt),
			ops:  []aggOp{addRow(int32(1)), addRow(int32(2)), addRow(int32(1)), undoRow(int32(1)), undoRow(int32(7)), undoRow(int32(1))},
			want: strs("[1]", "[1, 2]", "[1, 2, 1]", "[1, 2]", "[1, 2]", "[2]")},
		{name: "collect_list of arrays", fn: "COLLECT_LIST", args: ts(types.ArrayOf(tInt)),
			ops:  []aggOp{addRow([]any{int32(0), int32(-1)}), addRow([]any{int32(0), int32(-1)}), undoRow([]any{int32(0), int32(-1)})},
			want: strs("[[0, -1]]", "[[0, -1], [0, -1]]", "[[0, -1]]")},
		{name: "collect_set keeps distinct values and one null", fn: "COLLECT_SET", args: ts(tStr),
			ops:  []aggOp{addRow("baz"), addRow("baz"), addRow("foo"), addRow(nil), addRow(nil)},
			want: strs(`["baz"]`, `["baz"]`, `["baz", "foo"]`, `["baz", "foo", null]`, `["baz", "foo", null]`)},
		{name: "collect_set of maps compares by value", fn: "COLLECT_SET", args: ts(types.MapOf(tStr, tBig)),
			ops: []aggOp{
				addRow(map[string]any{"Record0": int64(100), "Record2": int64(2)}),
				addRow(map[string]any{"Record2": int64(2), "Record0": int64(100)}),
			},
			want: strs(`[{"Record0": 100, "Record2": 2}]`, `[{"Record0": 100, "Record2": 2}]`)},
		{name: "histogram", fn: "HISTOGRAM", args: ts(tStr),
			ops:  []aggOp{addRow("baz"), addRow("baz"), addRow("foo"), addRow(nil)},
			want: strs(`{"baz": 1}`, `{"baz": 2}`, `{"baz": 2, "foo": 1}`, `{"baz": 2, "foo": 1}`)},
		{name: "histogram on a table (histogram.json)", fn: "HISTOGRAM", args: ts(tStr),
			ops:  []aggOp{addRow("carol"), addRow("dave"), addRow("bob"), undoRow("bob"), undoRow("zed")},
			want: strs(`{"carol": 1}`, `{"carol": 1, "dave": 1}`, `{"bob": 1, "carol": 1, "dave": 1}`, `{"carol": 1, "dave": 1}`, `{"carol": 1, "dave": 1}`)},
	})
}

func TestCollectLimits(t *testing.T) {
	runAggCases(t, NewAggregates(WithCollectListLimit(1), WithCollectSetLimit(2)), []aggCase{
		{name: "collect_list with limit of 1", fn: "COLLECT_LIST", args: ts(tInt),
			ops: []aggOp{addRow(int32(0)), addRow(int32(100))}, want: strs("[0]", "[0]")},
		{name: "collect_set with limit of 2", fn: "COLLECT_SET", args: ts(tInt),
			ops: []aggOp{addRow(int32(0)), addRow(int32(100)), addRow(int32(7))}, want: strs("[0]", "[0, 100]", "[0, 100]")},
	})
	runAggCases(t, NewAggregates(WithCollectListLimit(-1)), []aggCase{
		{name: "negative limit means none", fn: "COLLECT_LIST", args: ts(tInt),
			ops: []aggOp{addRow(int32(0)), addRow(int32(1))}, want: strs("[0]", "[0, 1]")},
	})
}

func TestHistogramLimit(t *testing.T) {
	h, _ := NewAggregates().Resolve("HISTOGRAM", ts(tStr), nil)
	acc := h.Init()
	for i := 0; i < HistogramLimit+5; i++ {
		acc, _ = h.Add(acc, []any{string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))})
	}
	acc, _ = h.Add(acc, []any{"aaa"})
	m := acc.(map[string]any)
	if len(m) != HistogramLimit || m["aaa"] != int64(2) {
		t.Errorf("histogram has %d entries, aaa=%v", len(m), m["aaa"])
	}
}

func TestCollectMerges(t *testing.T) {
	reg := NewAggregates(WithCollectListLimit(3))
	for _, c := range []struct {
		fn   string
		a, b [][]any
		want string
	}{
		{"COLLECT_LIST", [][]any{{"a"}, {"b"}}, [][]any{{"c"}, {"d"}}, `["a", "b", "c"]`},
		{"COLLECT_SET", [][]any{{"a"}, {"b"}}, [][]any{{"b"}, {"c"}}, `["a", "b", "c"]`},
		{"HISTOGRAM", [][]any{{"a"}, {"b"}}, [][]any{{"b"}, {"c"}}, `{"a": 1, "b": 2, "c": 1}`},
	} {
		agg, err := reg.Resolve(c.fn, ts(tStr), nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := accumulate(t, agg, c.a...), accumulate(t, agg, c.b...)
		m, _ := agg.(Merger).Merge(a, b)
		if res, _ := agg.Result(m); showAgg(res) != c.want {
			t.Errorf("%s merge = %s, want %s", c.fn, showAgg(res), c.want)
		}
		if res, _ := agg.Result(a); len(showAgg(res)) == len(c.want) {
			t.Errorf("%s merge changed its first input: %s", c.fn, showAgg(res))
		}
	}
}
