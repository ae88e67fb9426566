package avro

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestBoxLayout checks that values boxed in the arena are the interface
// values the Go runtime makes: equal, the same dynamic type, and intact
// after garbage collections.
func TestBoxLayout(t *testing.T) {
	var kept []any
	var want []any
	for i := range 2000 {
		r := &reader{arena: boxes.New(3, 1)}
		s := fmt.Sprintf("s%d", i)
		vals := []any{
			box(r, typeWord(int64(0)), int64(i)*1e12),
			box(r, typeWord(int32(0)), int32(-i)),
			box(r, typeWord(float64(0)), float64(i)/3),
			box(r, typeWord(types.Timestamp(0)), types.Timestamp(i)),
			boxString(r, typeWord(""), s),
		}
		kept = append(kept, vals...)
		want = append(want, int64(i)*1e12, int32(-i), float64(i)/3, types.Timestamp(i), s)
		if i%500 == 0 {
			runtime.GC()
		}
	}
	runtime.GC()
	for i := range kept {
		if kept[i] != want[i] || reflect.TypeOf(kept[i]) != reflect.TypeOf(want[i]) || !reflect.DeepEqual(kept[i], want[i]) {
			t.Fatalf("value %d: boxed %#v (%T), want %#v (%T)", i, kept[i], kept[i], want[i], want[i])
		}
	}
	if ts, ok := kept[3].(types.Timestamp); !ok || ts != 0 {
		t.Fatalf("type switch on a boxed Timestamp: %v %v", ts, ok)
	}
}
