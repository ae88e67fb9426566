package format

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func taskKeyCodec(t *testing.T, typ *types.Type) Codec {
	t.Helper()
	c, err := NewTaskKeyCodec(Spec{Name: Kafka}, []types.Column{{Name: "K", Type: typ, NS: types.KeyNS}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTaskKeyDecodesWithoutAllocations: a task's KAFKA key codec decodes
// a STRING or BIGINT key into its arena, so a key costs a sixteenth of an
// allocation (a new chunk of boxes, a new slab) instead of two (string,
// box) or one (box).
func TestTaskKeyDecodesWithoutAllocations(t *testing.T) {
	big := binary.BigEndian.AppendUint64(nil, 1_700_000_000_123)
	for _, tc := range []struct {
		typ  *types.Type
		data []byte
		want any
	}{
		{types.StringType, []byte("user_12345"), "user_12345"},
		{types.BigintType, big, int64(1_700_000_000_123)},
	} {
		c := taskKeyCodec(t, tc.typ)
		dst := make([]any, 1)
		allocs := testing.AllocsPerRun(1000, func() {
			if err := c.Decode(tc.data, dst); err != nil {
				t.Fatal(err)
			}
		})
		if dst[0] != tc.want {
			t.Errorf("%s key decoded as %#v, want %#v", tc.typ, dst[0], tc.want)
		}
		if allocs > 0.125 {
			t.Errorf("a %s key costs %.3f allocations, want at most 1/8", tc.typ, allocs)
		}
	}
}

// TestTaskKeysStayTheirOwn: keys decoded into the arena keep their
// values while more are decoded (new slabs and chunks, never rewritten),
// the long ones (their own allocation) and the empty one included.
func TestTaskKeysStayTheirOwn(t *testing.T) {
	c := taskKeyCodec(t, types.StringType)
	var want []string
	var got []any
	for i := range 2000 {
		k := fmt.Sprintf("key-%d", i)
		switch i % 97 {
		case 0:
			k = strings.Repeat("long", 40) + k
		case 1:
			k = ""
		}
		dst := make([]any, 1)
		if err := c.Decode([]byte(k), dst); err != nil {
			t.Fatal(err)
		}
		want, got = append(want, k), append(got, dst[0])
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("key %d is %q, want %q", i, got[i], want[i])
		}
	}
}

// TestTaskKeyCodecOnlyForKafka: other formats get the shared codec, and
// NewKeyCodec's KAFKA codec has no arena (it may be shared).
func TestTaskKeyCodecOnlyForKafka(t *testing.T) {
	cols := []types.Column{{Name: "K", Type: types.StringType, NS: types.KeyNS}}
	c, err := NewTaskKeyCodec(Spec{Name: JSON}, cols)
	if _, ok := c.(*jsonCodec); err != nil || !ok {
		t.Errorf("JSON task key codec %T, %v; want the JSON codec", c, err)
	}
	shared, err := NewKeyCodec(Spec{Name: Kafka}, cols)
	if k, ok := shared.(*kafkaCodec); err != nil || !ok || k.keys != nil {
		t.Errorf("NewKeyCodec's KAFKA codec %#v, %v; want one without an arena", shared, err)
	}
}
