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
