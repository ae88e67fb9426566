package functions

import (
	"math"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestSumAvgAggregates(t *testing.T) {
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "sum int", fn: "SUM", args: ts(tInt),
			ops:  []aggOp{addRow(int32(0)), addRow(int32(100)), addRow(nil), addRow(int32(500))},
			want: strs("0", "100", "100", "600")},
		{name: "sum int wraps like Java", fn: "SUM", args: ts(tInt),
			ops:  []aggOp{addRow(int32(math.MaxInt32)), addRow(int32(1))},
			want: strs("2147483647", "-2147483648")},
		{name: "sum bigint", fn: "sum", args: ts(tBig),
			ops:  []aggOp{addRow(int64(2147483648)), addRow(int64(100))},
			want: strs("2147483648", "2147483748")},
		{name: "sum double", fn: "SUM", args: ts(tDbl),
			ops:  []aggOp{addRow(500.9), addRow(300.8)},
			want: strs("500.9", "801.7")},
		{name: "sum decimal keeps the type", fn: "SUM", args: ts(types.DecimalOf(4, 1)),
			ops:  []aggOp{addRow(aggDec("500.9")), addRow(aggDec("300.8")), addRow(aggDec("400.8"))},
			want: strs("500.9", "801.7", "error: Numeric field overflow: A field with precision 4 and scale 1 must round to an absolute value less than 10^3. Got 1203")},
		{name: "sum decimal(6,2)", fn: "SUM", args: ts(types.DecimalOf(6, 2)),
			ops:  []aggOp{addRow(aggDec("500.90")), addRow(aggDec("300.80")), addRow(aggDec("400.80")), undoRow(aggDec("300.80"))},
			want: strs("500.90", "801.70", "1202.50", "901.70")},
		{name: "sum of only nulls is 0 (table left join)", fn: "SUM", args: ts(tInt),
			ops:  []aggOp{addRow(nil), addRow(int32(5)), undoRow(int32(5)), addRow(nil)},
			want: strs("0", "5", "0", "0")},
		{name: "sum of an integer literal", fn: "SUM", args: ts(tInt), init: []any{int32(2)},
			ops:  []aggOp{addRow(int32(2)), addRow(int32(2))},
			want: strs("2", "4")},
		{name: "sum_list doubles", fn: "SUM_LIST", args: ts(types.ArrayOf(tDbl)),
			ops:  []aggOp{addRow([]any{1.0, 1.0}), addRow([]any{2.0, 2.0}), addRow([]any{922337203685.0, 1.0}), addRow([]any{1.0, 1.0, nil}), addRow(nil)},
			want: strs("2", "6", "922337203692", "922337203694", "922337203694")},
		{name: "sum_list ints", fn: "SUM_LIST", args: ts(types.ArrayOf(tInt)),
			ops:  []aggOp{addRow([]any{int32(100), int32(100), nil}), undoRow([]any{int32(50)})},
			want: strs("200", "150")},
		{name: "avg int", fn: "AVG", args: ts(tInt),
			ops:  []aggOp{addRow(int32(1)), addRow(int32(2)), addRow(int32(2)), addRow(nil)},
			want: strs("1", "1.5", "1.6666666666666667", "1.6666666666666667")},
		{name: "avg bigint", fn: "AVG", args: ts(tBig),
			ops:  []aggOp{addRow(int64(-1)), addRow(int64(math.MaxInt64)), addRow(int64(1))},
			want: strs("-1", "4.611686018427388e+18", "3.0744573456182584e+18")},
		{name: "avg double", fn: "AVG", args: ts(tDbl),
			ops:  []aggOp{addRow(2.3), addRow(-200000.6), addRow(0.0)},
			want: strs("2.3", "-99999.15000000001", "-66666.1")},
		{name: "avg over a table", fn: "AVG", args: ts(tInt),
			ops:  []aggOp{addRow(int32(1)), addRow(int32(2)), undoRow(int32(1)), addRow(nil), undoRow(nil), addRow(int32(4))},
			want: strs("1", "1.5", "2", "2", "2", "3")},
		{name: "avg of nothing is 0", fn: "AVG", args: ts(tDbl),
			ops:  []aggOp{addRow(nil)},
			want: strs("0")},
		{name: "avg decimal widens to double", fn: "AVG", args: ts(types.DecimalOf(4, 2)),
			ops:  []aggOp{addRow(aggDec("1.50")), addRow(aggDec("2.50"))},
			want: strs("1.5", "2")},
	})
}

func TestSumMerge(t *testing.T) {
	reg := NewAggregates()
	for _, c := range []struct {
		fn   string
		arg  *types.Type
		a, b [][]any
		want string
	}{
		{"SUM", tInt, [][]any{{int32(1)}, {int32(2)}}, [][]any{{int32(4)}}, "7"},
		{"SUM", types.DecimalOf(4, 1), [][]any{{aggDec("1.5")}}, [][]any{{aggDec("2.5")}}, "4.0"},
		{"AVG", tBig, [][]any{{int64(1)}, {int64(2)}}, [][]any{{int64(6)}}, "3"},
		{"SUM_LIST", types.ArrayOf(tBig), [][]any{{[]any{int64(1), int64(2)}}}, [][]any{{[]any{int64(4)}}}, "7"},
	} {
		agg, err := reg.Resolve(c.fn, ts(c.arg), nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := agg.(Merger).Merge(accumulate(t, agg, c.a...), accumulate(t, agg, c.b...))
		if err != nil {
			t.Fatal(err)
		}
		if res, _ := agg.Result(m); showAgg(res) != c.want {
			t.Errorf("%s(%s) merge = %s, want %s", c.fn, c.arg, showAgg(res), c.want)
		}
	}
}

func TestSumAvgStateTypes(t *testing.T) {
	reg := NewAggregates()
	for _, c := range []struct {
		fn         string
		arg        *types.Type
		state, ret string
	}{
		{"SUM", tInt, "INTEGER", "INTEGER"},
		{"SUM", tBig, "BIGINT", "BIGINT"},
		{"SUM", tDbl, "DOUBLE", "DOUBLE"},
		{"SUM", types.DecimalOf(4, 1), "DECIMAL(4, 1)", "DECIMAL(4, 1)"},
		{"AVG", tInt, "STRUCT<`SUM` INTEGER, `COUNT` BIGINT>", "DOUBLE"},
		{"AVG", tDbl, "STRUCT<`SUM` DOUBLE, `COUNT` BIGINT>", "DOUBLE"},
		{"SUM_LIST", types.ArrayOf(tDbl), "DOUBLE", "DOUBLE"},
	} {
		agg, err := reg.Resolve(c.fn, ts(c.arg), nil)
		if err != nil {
			t.Fatal(err)
		}
		if s, r := agg.StateType().String(), agg.ReturnType().String(); s != c.state || r != c.ret {
			t.Errorf("%s(%s): state %s return %s, want %s %s", c.fn, c.arg, s, r, c.state, c.ret)
		}
	}
}
