package functions

import (
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// hashGoldenValues are values of every kind valueHash reads.
func hashGoldenValues() []any {
	return []any{nil, true, false, int32(-7), int64(7), int64(-1 << 63), 1.5, apd.New(1500, -3), apd.New(15, -1),
		"", "bidder", []byte{}, []byte{0, 1, 2}, types.Timestamp(1700000000000), types.Date(19000), types.Time(3600000),
		[]any{int64(1), "a", nil}, map[string]any{"b": int64(2), "a": "x"},
		&types.StructValue{Values: []any{int64(3), "s"}}, (*types.StructValue)(nil)}
}

// hashGolden is valueHash of hashGoldenValues as stored states hold them
// (COUNT_DISTINCT's exact sets and registers): computed with hash/fnv's
// FNV-1a before the hasher became the package's own, and never to change.
var hashGolden = []int64{
	-5115162479779449349, -3097998769006583512, -4626575399317405841, -3700453675544676139, -1429824800088676745, 1909395258722842012, -3216849973653242532, -5835004818817205245, -5835004818817205245, -6014312323671517261, -325514399514466603, -6158311409416065397, -8957633373760134756,
	3241378273847537985, -8914182707182776559, -1293162937802296249, 4915488738587554973, 8208583018037780084, -8781240072750833446, 376734198088695853,
}

// TestValueHashGolden: valueHash gives the hashes stored states were
// written with, for values of every kind (1.500 and 1.5 alike, a map
// whatever its order), with no allocation for a scalar.
func TestValueHashGolden(t *testing.T) {
	vals := hashGoldenValues()
	if len(hashGolden) != len(vals) {
		t.Fatalf("%d golden hashes for %d values", len(hashGolden), len(vals))
	}
	for i, v := range vals {
		if got := valueHash(v); got != hashGolden[i] {
			t.Errorf("valueHash(%#v) = %d, stored states hold %d", v, got, hashGolden[i])
		}
	}
	for _, v := range []any{int64(12345), "bidder-12345", 2.5} {
		if n := testing.AllocsPerRun(100, func() { valueHash(v) }); n != 0 {
			t.Errorf("valueHash(%#v): %.0f allocations, want 0", v, n)
		}
	}
}
