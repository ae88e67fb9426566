package functions

import (
	"testing"
)

func TestStddevAggregates(t *testing.T) {
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "stddev_sample int", fn: "STDDEV_SAMPLE", args: ts(tInt),
			ops:  []aggOp{addRow(int32(0)), addRow(int32(10)), addRow(int32(7)), addRow(int32(6))},
			want: strs("0", "7.0710678118654755", "5.131601439446884", "4.193248541803041")},
		{name: "stddev_sample int other group", fn: "STDDEV_SAMPLE", args: ts(tInt),
			ops:  []aggOp{addRow(int32(50)), addRow(int32(10)), addRow(int32(3)), addRow(nil)},
			want: strs("0", "28.284271247461902", "25.357444666211933", "25.357444666211933")},
		{name: "stddev_sample bigint", fn: "STDDEV_SAMPLE", args: ts(tBig),
			ops:  []aggOp{addRow(int64(2147483648)), addRow(int64(100)), addRow(int64(-2))},
			want: strs("0", "1518500179.2773468", "1239850233.9629574")},
		{name: "stddev_sample double", fn: "STDDEV_SAMPLE", args: ts(tDbl),
			ops:  []aggOp{addRow(9223372036854.775), addRow(300.8), addRow(-200000.6), addRow(0.0)},
			want: strs("0", "6521908912453.693", "5325116385962.54", "4611686051710.689")},
		{name: "stddev_samp int is ksqlDB's variance", fn: "STDDEV_SAMP", args: ts(tInt),
			ops:  []aggOp{addRow(int32(0)), addRow(int32(10)), addRow(int32(7)), addRow(int32(6))},
			want: strs("0", "50", "26.333333333333332", "17.583333333333332")},
		{name: "stddev_samp bigint", fn: "STDDEV_SAMP", args: ts(tBig),
			ops:  []aggOp{addRow(int64(500)), addRow(int64(100)), addRow(int64(0)), addRow(int64(-6))},
			want: strs("0", "80000", "70000", "57275.666666666664")},
		{name: "stddev_samp bigint large", fn: "STDDEV_SAMP", args: ts(tBig),
			ops:  []aggOp{addRow(int64(2147483648)), addRow(int64(100)), addRow(int64(-2))},
			want: strs("0", "2.3058427944653343e+18", "1.5372286026580004e+18")},
		{name: "stddev_samp double", fn: "STDDEV_SAMP", args: ts(tDbl),
			ops:  []aggOp{addRow(-1.8), addRow(2.3), addRow(100.2), addRow(nil)},
			want: strs("0", "8.405", "3334.2033333333347", "3334.2033333333347")},
		{name: "stddev_samp double map values", fn: "STDDEV_SAMP", args: ts(tDbl),
			ops:  []aggOp{addRow(10.0), addRow(12.0), addRow(13.0), addRow(14.0), addRow(16.0)},
			want: strs("0", "2", "2.333333333333333", "2.9166666666666665", "5")},
		{name: "stddev_samp undo", fn: "STDDEV_SAMP", args: ts(tDbl),
			ops:  []aggOp{addRow(10.0), addRow(12.0), addRow(13.0), undoRow(13.0), undoRow(12.0)},
			want: strs("0", "2", "2.333333333333333", "1.9999999999999996", "0")},
		{name: "correlation double (correlation-udaf.json)", fn: "CORRELATION", args: ts(tDbl, tDbl),
			ops:  []aggOp{addRow(1.5, 8.0), addRow(-1.0, -2.0), addRow(-4.5, -1.0), addRow(nil, -6.0)},
			want: strs("NaN", "1", "0.7580764521133173", "0.7580764521133173")},
		{name: "correlation int widens to double", fn: "CORRELATION", args: ts(tInt, tInt),
			ops:  []aggOp{addRow(int32(1), int32(8)), addRow(int32(-1), int32(-2)), addRow(int32(-4), int32(-1))},
			want: strs("NaN", "1", "0.7455284088780169")},
		{name: "correlation bigint", fn: "CORRELATION", args: ts(tBig, tBig),
			ops:  []aggOp{addRow(int64(-3), int64(-2)), addRow(int64(13), nil), addRow(int64(3), int64(11))},
			want: strs("NaN", "NaN", "1")},
		{name: "correlation over a table", fn: "CORRELATION", args: ts(tDbl, tDbl),
			ops:  []aggOp{addRow(1.5, 8.0), addRow(-3.5, -2.0), undoRow(1.5, 8.0), addRow(-1.0, -2.0), addRow(-4.5, -1.0)},
			want: strs("NaN", "1", "NaN", "NaN", "-0.7205766921228921")},
	})
}

func TestStddevMerge(t *testing.T) {
	reg := NewAggregates()
	for _, c := range []struct {
		fn   string
		a, b [][]any
		want string
	}{
		{"STDDEV_SAMPLE", [][]any{{10.0}, {12.0}}, [][]any{{13.0}, {14.0}, {16.0}}, "2.23606797749979"},
		{"STDDEV_SAMP", [][]any{{10.0}, {12.0}}, [][]any{{13.0}, {14.0}, {16.0}}, "5.000000000000001"},
		{"STDDEV_SAMP", [][]any{{10.0}}, nil, "0"},
		{"CORRELATION", [][]any{{1.5, 8.0}}, [][]any{{-1.0, -2.0}, {-4.5, -1.0}}, "0.7580764521133173"},
	} {
		args := ts(tDbl)
		if c.fn == "CORRELATION" {
			args = ts(tDbl, tDbl)
		}
		agg, err := reg.Resolve(c.fn, args, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := agg.(Merger).Merge(accumulate(t, agg, c.a...), accumulate(t, agg, c.b...))
		if res, _ := agg.Result(m); showAgg(res) != c.want {
			t.Errorf("%s merge = %s, want %s", c.fn, showAgg(res), c.want)
		}
	}
}

func TestStatsStateTypes(t *testing.T) {
	reg := NewAggregates()
	for _, c := range []struct {
		fn    string
		state string
	}{
		{"STDDEV_SAMP", "STRUCT<`SUM` INTEGER, `COUNT` INTEGER, `M2` DOUBLE>"},
		{"STDDEV_SAMPLE", "STRUCT<`SUM` INTEGER, `COUNT` BIGINT, `M2` DOUBLE>"},
	} {
		agg, _ := reg.Resolve(c.fn, ts(tInt), nil)
		if agg.StateType().String() != c.state || agg.ReturnType().String() != "DOUBLE" {
			t.Errorf("%s: %s %s", c.fn, agg.StateType(), agg.ReturnType())
		}
	}
}
