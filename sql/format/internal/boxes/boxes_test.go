package boxes

import (
	"fmt"
	"reflect"
	"runtime"
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
// two allocations (one chunk of each) with New's hints; the zero Arena
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
	if allocs > 2 {
		t.Errorf("%.0f allocations for a record of 5 values, want 2", allocs)
	}
	var zero Arena
	if v := String(&zero, str, s); v != any(s) {
		t.Errorf("zero arena boxed %#v", v)
	}
}
