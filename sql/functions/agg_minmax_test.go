package functions

import (
	"math"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestMinMaxAggregates(t *testing.T) {
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "min integer (min-group-by.json)", fn: "MIN", args: ts(tInt),
			ops:  []aggOp{addRow(nil), addRow(int32(-2147483647)), addRow(int32(5)), addRow(nil)},
			want: strs("null", "-2147483647", "-2147483647", "-2147483647")},
		{name: "max bigint", fn: "MAX", args: ts(tBig),
			ops:  []aggOp{addRow(int64(100)), addRow(int64(6)), addRow(int64(300))},
			want: strs("100", "100", "300")},
		{name: "min decimal", fn: "MIN", args: ts(types.DecimalOf(4, 2)),
			ops:  []aggOp{addRow(aggDec("21.79")), addRow(aggDec("1.10")), addRow(aggDec("-1.79"))},
			want: strs("21.79", "1.10", "-1.79")},
		{name: "max string", fn: "MAX", args: ts(tStr),
			ops:  []aggOp{addRow("b"), addRow("a"), addRow("c")},
			want: strs(`"b"`, `"b"`, `"c"`)},
		{name: "min bytes", fn: "MIN", args: ts(types.BytesType),
			ops:  []aggOp{addRow([]byte("b")), addRow([]byte("a"))},
			want: strs("Yg==", "YQ==")},
		{name: "max timestamp", fn: "MAX", args: ts(types.TimestampType),
			ops:  []aggOp{addRow(types.Timestamp(-100)), addRow(types.Timestamp(5))},
			want: strs("-100", "5")},
		{name: "max double as Double.compareTo: NaN is greatest", fn: "MAX", args: ts(tDbl),
			ops:  []aggOp{addRow(1.5), addRow(math.NaN()), addRow(math.Inf(1))},
			want: strs("1.5", "NaN", "NaN")},
		{name: "min double as Double.compareTo: -0.0 < 0.0", fn: "MIN", args: ts(tDbl),
			ops:  []aggOp{addRow(0.0), addRow(math.Copysign(0, -1)), addRow(0.0)},
			want: strs("0", "-0", "-0")},
		{name: "min date and time", fn: "MIN", args: ts(types.DateType),
			ops:  []aggOp{addRow(types.Date(100)), addRow(types.Date(6))},
			want: strs("100", "6")},
	})
}

func TestMinMaxMergeAndTypes(t *testing.T) {
	reg := NewAggregates()
	agg, err := reg.Resolve("MAX", ts(types.TimeType), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := agg.(Merger).Merge(accumulate(t, agg, []any{types.Time(7)}), accumulate(t, agg, []any{nil}))
	if res, _ := agg.Result(m); res != types.Time(7) {
		t.Errorf("MAX merge = %v", res)
	}
	if agg.StateType().String() != "TIME" || agg.ReturnType().String() != "TIME" {
		t.Errorf("types %s %s", agg.StateType(), agg.ReturnType())
	}
	if _, ok := agg.(Undoer); ok {
		t.Errorf("MAX must not undo (stream only in ksqlDB)")
	}
	if _, err := reg.Resolve("MIN", ts(types.ArrayOf(tInt)), nil); err == nil {
		t.Errorf("MIN(ARRAY<INTEGER>) resolved")
	}
}
