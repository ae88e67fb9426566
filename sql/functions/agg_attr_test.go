package functions

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestAttrAggregate(t *testing.T) {
	st := types.StructOf(types.Field{Name: "A", Type: tStr}, types.Field{Name: "B", Type: tInt})
	sv := func() any { return &types.StructValue{Type: st, Values: []any{"a", int32(1)}} }
	runAggCases(t, NewAggregates(), []aggCase{
		{name: "one value (attr.json)", fn: "ATTR", args: ts(tStr),
			ops: []aggOp{addRow("s"), addRow("s"), addRow("s")}, want: strs(`"s"`, `"s"`, `"s"`)},
		{name: "structs compare by value", fn: "ATTR", args: ts(st),
			ops: []aggOp{addRow(sv()), addRow(sv())}, want: strs(`{A: "a", B: 1}`, `{A: "a", B: 1}`)},
		{name: "only nulls", fn: "ATTR", args: ts(tStr),
			ops: []aggOp{addRow(nil), addRow(nil)}, want: strs("null", "null")},
		{name: "several values", fn: "ATTR", args: ts(tStr),
			ops: []aggOp{addRow("1"), addRow("2"), addRow("3")}, want: strs(`"1"`, "null", "null")},
		{name: "null is a value", fn: "ATTR", args: ts(tStr),
			ops: []aggOp{addRow("1"), addRow(nil), addRow("1")}, want: strs(`"1"`, "null", "null")},
		{name: "table with tombstones", fn: "ATTR", args: ts(tStr),
			ops:  []aggOp{addRow("1"), addRow("1"), undoRow("1"), undoRow("1"), addRow("2"), addRow("3"), undoRow("3")},
			want: strs(`"1"`, `"1"`, `"1"`, "null", `"2"`, "null", `"2"`)},
	})
	attr, _ := NewAggregates().Resolve("ATTR", ts(tInt), nil)
	a := accumulate(t, attr, []any{int32(1)})
	b := accumulate(t, attr, []any{int32(1)}, []any{int32(1)})
	m, _ := attr.(Merger).Merge(a, b)
	if res, _ := attr.Result(m); res != int32(1) {
		t.Errorf("ATTR merge = %v", res)
	}
	if want := "ARRAY<STRUCT<`VALUE` INTEGER, `COUNT` INTEGER>>"; attr.StateType().String() != want {
		t.Errorf("state %s", attr.StateType())
	}
}
