package functions

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

func decOf(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestValueKeyEquality(t *testing.T) {
	st := types.StructOf(types.Field{Name: "A", Type: types.IntegerType})
	for _, tc := range []struct {
		a, b  any
		equal bool
	}{
		{int32(1), int32(1), true},
		{int32(1), int64(1), false},
		{decOf("1.0"), decOf("1.00"), true},
		{decOf("-0.0"), decOf("0"), true},
		{math.NaN(), math.NaN(), true},
		{0.0, math.Copysign(0, -1), false},
		{"a", "a", true},
		{"ab", "a", false},
		{[]byte{1}, []byte{1}, true},
		{nil, nil, true},
		{nil, "", false},
		{[]any{"a", nil}, []any{"a", nil}, true},
		{[]any{"a,b"}, []any{"a", "b"}, false},
		{map[string]any{"a": int32(1), "b": nil}, map[string]any{"b": nil, "a": int32(1)}, true},
		{map[string]any{"a": int32(1)}, map[string]any{"a": int32(2)}, false},
		{&types.StructValue{Type: st, Values: []any{int32(1)}}, &types.StructValue{Type: st, Values: []any{int32(1)}}, true},
		{types.Timestamp(5), types.Date(5), false},
	} {
		if got := valueKey(tc.a) == valueKey(tc.b); got != tc.equal {
			t.Errorf("valueKey(%v) == valueKey(%v) is %v, want %v", tc.a, tc.b, got, tc.equal)
		}
	}
}

func TestCompareValuesJavaOrder(t *testing.T) {
	for _, tc := range []struct {
		a, b any
		want int
	}{
		{"\uffff", "😀", 1}, // U+1F600 starts with the surrogate 0xD83D
		{"a", "ab", -1},
		{"B", "a", -1},
		{"é", "z", 1},
		{math.Copysign(0, -1), 0.0, -1},
		{math.NaN(), math.Inf(1), 1},
		{math.NaN(), math.NaN(), 0},
		{[]byte{0x01}, []byte{0xff}, 1}, // remPio2Result bytes: 0xff is -1
		{[]byte{0x01}, []byte{0x01, 0x00}, -1},
		{false, true, -1},
		{decOf("1.50"), decOf("1.5"), 0},
		{types.Date(3), types.Date(2), 1},
	} {
		got, err := compareValues(tc.a, tc.b)
		if err != nil || got != tc.want {
			t.Errorf("compareValues(%v, %v) = %d, %v; want %d", tc.a, tc.b, got, err, tc.want)
		}
	}
	if _, err := compareValues([]any{}, []any{}); err == nil {
		t.Error("arrays must have no order")
	}
}
