package functions

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// Value identity for the collection functions, with Java's equals
// semantics where they differ from Go's: doubles are equal when their bits
// are (NaN equals NaN, 0.0 differs from -0.0). Decimals compare by numeric
// value, so 1.0 equals 1.00. Their order is types.CompareValues, the one
// every function and operator uses.

// valueKey returns a string that is equal for two values exactly when the
// values are equal; the collection functions use it as a set/map key.
func valueKey(v any) string {
	var b strings.Builder
	writeValueKey(&b, v)
	return b.String()
}

func writeValueKey(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		b.WriteString(map[bool]string{true: "b1", false: "b0"}[x])
	case int32:
		b.WriteString("i" + strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString("l" + strconv.FormatInt(x, 10))
	case float64:
		b.WriteString("d" + strconv.FormatUint(javaDoubleBits(x), 16))
	case *apd.Decimal:
		var r apd.Decimal
		r.Reduce(java.UnsignedZero(x))
		b.WriteString("m" + r.String())
	case string:
		writeLenPrefixed(b, "s", x)
	case []byte:
		writeLenPrefixed(b, "y", string(x))
	case types.Timestamp, types.Date, types.Time:
		fmt.Fprintf(b, "t%T%d", x, x)
	case []any:
		writeSeqKey(b, "[", x, "]")
	case map[string]any:
		writeMapKey(b, x)
	case *types.StructValue:
		writeSeqKey(b, "(", x.Values, ")")
	default:
		fmt.Fprintf(b, "?%T%v", x, x)
	}
}

// javaDoubleBits is Double.doubleToLongBits: every NaN has one pattern.
func javaDoubleBits(f float64) uint64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

func writeLenPrefixed(b *strings.Builder, tag, s string) {
	b.WriteString(tag + strconv.Itoa(len(s)) + ":" + s)
}

func writeSeqKey(b *strings.Builder, open string, elems []any, closing string) {
	b.WriteString(open)
	for _, e := range elems {
		writeValueKey(b, e)
		b.WriteByte(',')
	}
	b.WriteString(closing)
}

func writeMapKey(b *strings.Builder, m map[string]any) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteString("{")
	for _, k := range keys {
		writeLenPrefixed(b, "k", k)
		writeValueKey(b, m[k])
		b.WriteByte(',')
	}
	b.WriteString("}")
}
