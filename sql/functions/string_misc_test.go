package functions

import (
	"encoding/hex"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// UUID(bytes) is ksqlDB's Uuid.uuid(ByteBuffer): 16 bytes as a UUID
// string, NULL for any other length.
func TestUUIDOfBytes(t *testing.T) {
	res, err := NewRegistry().Resolve("UUID", ts(types.BytesType))
	if err != nil {
		t.Fatal(err)
	}
	sixteen, _ := hex.DecodeString("0123456789abcdef0011223344556677")
	cases := []struct {
		in   []byte
		want any
	}{
		{sixteen, "01234567-89ab-cdef-0011-223344556677"},
		{sixteen[:4], nil},
		{append(sixteen, 0), nil},
	}
	for _, c := range cases {
		got, err := res.Fn([]any{c.in})
		if err != nil || got != c.want {
			t.Errorf("UUID(%x) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// ROUND and TRUNC of an INTEGER are BIGINTs, as ksqlDB's Long round(int)
// and Long trunc(Integer) return them.
func TestRoundTruncIntegerIsBigint(t *testing.T) {
	for _, name := range []string{"ROUND", "TRUNC"} {
		res, err := NewRegistry().Resolve(name, ts(types.IntegerType))
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Fn([]any{int32(-7)})
		if err != nil || got != int64(-7) || res.Return.Kind != types.KindBigint {
			t.Errorf("%s(INTEGER -7) = %v (%T) %s, %v; want -7 BIGINT", name, got, got, res.Return, err)
		}
	}
}
