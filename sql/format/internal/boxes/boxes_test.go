package boxes

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

type timestamp int64 // a named type, as sql/types' Timestamp

// TestLayout checks that values boxed in an arena are the interface
// values the Go runtime makes: equal, the same dynamic type, usable in a
// type switch, and intact after garbage collections.
func TestLayout(t *testing.T) {
	var kept, want []any
	i64, i32, f64, ts, str := TypeWord(int64(0)), TypeWord(int32(0)), TypeWord(float64(0)), TypeWord(timestamp(0)), TypeWord("")
	for i := range 2000 {
		a := New(3, 1)
		s := fmt.Sprintf("s%d", i)
		kept = append(kept, Word(&a, i64, int64(i)*1e12), Word(&a, i32, int32(-i)), Word(&a, f64, float64(i)/3),
			Word(&a, ts, timestamp(i)), String(&a, str, s), String(&a, str, s+"2"))
		want = append(want, int64(i)*1e12, int32(-i), float64(i)/3, timestamp(i), s, s+"2")
		if i%500 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range kept {
		if kept[i] != want[i] || reflect.TypeOf(kept[i]) != reflect.TypeOf(want[i]) {
			t.Fatalf("value %d: boxed %#v (%T), want %#v (%T)", i, kept[i], kept[i], want[i], want[i])
		}
	}
	if v, ok := kept[3].(timestamp); !ok || v != 0 {
		t.Fatalf("type switch on a boxed named type: %v %v", v, ok)
	}
}

// TestArenaAllocations: a record of three words and two strings boxes in
// one allocation (a frame holding the first chunk of each) with New's
// hints, one of 6 words and no strings in one (a chunk of words), one of
// 6 words and 2 strings (more than a frame holds) in two; the zero Arena
// works too.
func TestArenaAllocations(t *testing.T) {
	i64, str := TypeWord(int64(0)), TypeWord("")
	s := "a string"
	var sink []any
	allocs := testing.AllocsPerRun(100, func() {
		a := New(3, 2)
		sink = append(sink[:0], Word(&a, i64, int64(1e12)), Word(&a, i64, int64(2e12)), Word(&a, i64, int64(3e12)),
			String(&a, str, s), String(&a, str, s))
	})
	if allocs > 1 {
		t.Errorf("%.0f allocations for a record of 5 values, want 1", allocs)
	}
	for _, c := range []struct{ words, strs, want int }{{6, 0, 1}, {6, 2, 2}} {
		allocs := testing.AllocsPerRun(100, func() {
			a := New(c.words, c.strs)
			sink = sink[:0]
			for i := range c.words {
				sink = append(sink, Word(&a, i64, int64(i)<<40))
			}
			for range c.strs {
				sink = append(sink, String(&a, str, s))
			}
		})
		if allocs > float64(c.want) {
			t.Errorf("%.0f allocations for %d words and %d strings, want %d", allocs, c.words, c.strs, c.want)
		}
		for i := range c.words {
			if sink[i] != any(int64(i)<<40) {
				t.Errorf("word %d boxed as %#v", i, sink[i])
			}
		}
	}
	var zero Arena
	if v := String(&zero, str, s); v != any(s) {
		t.Errorf("zero arena boxed %#v", v)
	}
}

// TestInt: integers in [0, 256) box without an allocation and outside
// the arena, others in it; all are the values and types boxed.
func TestInt(t *testing.T) {
	i32, i64 := TypeWord(int32(0)), TypeWord(int64(0))
	var sink any
	for _, v := range []int64{0, 7, 255, 256, -1, 1 << 40} {
		a := New(1, 0)
		allocs := testing.AllocsPerRun(100, func() { a = New(1, 0); sink = Int(&a, i64, v) })
		if sink != any(v) {
			t.Errorf("Int(%d) boxed %#v", v, sink)
		}
		if small := v >= 0 && v < 256; small && allocs > 0 || !small && allocs > 1 {
			t.Errorf("Int(%d): %.0f allocations", v, allocs)
		}
		if got := Int(&a, i32, int32(v)); v == int64(int32(v)) && got != any(int32(v)) {
			t.Errorf("Int(int32 %d) boxed %#v", v, got)
		}
	}
}

// TestSlabStringsStay: the strings a Slab hands out keep their bytes
// while it fills and moves to new slabs; a long one is its own, an empty
// one takes no room.
func TestSlabStringsStay(t *testing.T) {
	var s Slab
	var got []string
	var want []string
	for i := range 2000 {
		w := strings.Repeat(string(rune('a'+i%26)), i%(SlabLongest+40))
		b := []byte(w)
		got = append(got, s.String(b))
		if len(b) > 0 {
			b[0] = 0 // the caller's bytes change; the string must not
		}
		want = append(want, w)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d changed to %q, want %q", i, got[i], want[i])
		}
	}
}
