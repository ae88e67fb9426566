package functions

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
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
		r.Reduce(unsignedZero(x))
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

// javaMapOrder lists m's keys in the iteration order of a java.util.HashMap
// created for len(m) entries, which is the order ksqlDB's map functions see
// (ksqlDB's deserializers build maps with new HashMap<>(size)): by hash
// bucket, keys sharing a bucket in string order. Java keeps such keys in
// insertion (document) order, which Go maps do not record; the orders
// agree when the keys arrived sorted.
func javaMapOrder(m map[string]any) []string {
	capacity := javaTableSize(len(m))
	bucket := func(k string) uint32 {
		h := javaStringHash(k)
		return (h ^ h>>16) & uint32(capacity-1)
	}
	keys := sortedMapKeys(m)
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(bucket(a), bucket(b)) })
	return keys
}

// javaTableSize is the table size of new HashMap<>(n) after n insertions:
// the next power of two, doubled while the load factor 0.75 is exceeded.
func javaTableSize(n int) int {
	c := 1
	for c < n {
		c <<= 1
	}
	for float64(n) > 0.75*float64(c) {
		c <<= 1
	}
	return c
}

// javaStringHash is String.hashCode over UTF-16 code units.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			r1, r2 := utf16.EncodeRune(r)
			h = 31*(31*h+uint32(r1)) + uint32(r2)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}
