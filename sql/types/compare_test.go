package types

import (
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

func TestCompareValues(t *testing.T) {
	cases := []struct {
		a, b any
		want int
	}{
		{int32(1), int32(2), -1}, {int64(5), int64(5), 0}, {2.5, 1.0, 1},
		{"b2", "b10", 1}, {"B2", "b2", -1},
		{"\U0001F600", "\uFFFD", -1},     // UTF-16: surrogate D83D < FFFD
		{[]byte{0x80}, []byte{0x01}, -1}, // signed: -128 < 1
		{apd.New(101, -2), apd.New(1010, -3), 0},
		{false, true, -1}, {Timestamp(3), Timestamp(2), 1}, {Date(1), Date(1), 0}, {Time(0), Time(1), -1},
		// Java's compareTo, which GREATEST, MIN, TOPK and ARRAY_SORT use.
		{math.Copysign(0, -1), 0.0, -1}, {math.NaN(), math.Inf(1), 1}, {math.NaN(), math.NaN(), 0},
		{math.Inf(-1), math.NaN(), -1},
		{"\uffff", "😀", 1}, {"a", "ab", -1}, {"B", "a", -1}, {"é", "z", 1}, {"xé", "xè", 1},
		{"a\xff", "a\xfe", 1}, {"\xc3", "\xc3\xa9", 1}, {"\xc3A", "\xc3\xa9", 1}, // U+FFFD > é
		{[]byte{0x01}, []byte{0xff}, 1}, {[]byte{0x01}, []byte{0x01, 0x00}, -1},
	}
	for _, c := range cases {
		got, ok := CompareValues(c.a, c.b)
		if !ok || got != c.want {
			t.Errorf("CompareValues(%v, %v) = %d, %v; want %d", c.a, c.b, got, ok, c.want)
		}
	}
	if _, ok := CompareValues([]any{1}, []any{1}); ok {
		t.Errorf("arrays must not be orderable")
	}
}

func TestValuesEqual(t *testing.T) {
	st := StructOf(Field{Name: "A", Type: IntegerType})
	cases := []struct {
		a, b any
		want bool
	}{
		{apd.New(1, 0), apd.New(10, -1), true},
		{[]any{int32(1), nil}, []any{int32(1), nil}, true},
		{[]any{int32(1), nil}, []any{int32(1), int32(2)}, false},
		{map[string]any{"a": "x"}, map[string]any{"a": "x"}, true},
		{map[string]any{"a": "x"}, map[string]any{"b": "x"}, false},
		{&StructValue{Type: st, Values: []any{int32(1)}}, &StructValue{Type: st, Values: []any{int32(1)}}, true},
		{[]byte("a"), []byte("a"), true},
		{int32(1), int64(1), false},
	}
	for _, c := range cases {
		if got := ValuesEqual(c.a, c.b); got != c.want {
			t.Errorf("ValuesEqual(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
