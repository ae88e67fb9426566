package functions

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Value identity and order for the collection functions, with Java's
// semantics where they differ from Go's: doubles are equal when their bits
// are (NaN equals NaN, 0.0 differs from -0.0), strings order by UTF-16
// code units, bytes order as signed bytes. Decimals compare by numeric
// value, so 1.0 equals 1.00.

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

// compareValues orders two non-NULL values of the same orderable type as
// their Java classes' compareTo does. Arrays, maps and structs have no
// order.
func compareValues(a, b any) (int, error) {
	switch x := a.(type) {
	case bool:
		return compareBools(x, b.(bool)), nil
	case int32:
		return cmp.Compare(x, b.(int32)), nil
	case int64:
		return cmp.Compare(x, b.(int64)), nil
	case float64:
		return javaCompareDoubles(x, b.(float64)), nil
	case *apd.Decimal:
		return x.Cmp(b.(*apd.Decimal)), nil
	case string:
		return javaCompareStrings(x, b.(string)), nil
	case []byte:
		return compareSignedBytes(x, b.([]byte)), nil
	case types.Timestamp:
		return cmp.Compare(x, b.(types.Timestamp)), nil
	case types.Date:
		return cmp.Compare(x, b.(types.Date)), nil
	case types.Time:
		return cmp.Compare(x, b.(types.Time)), nil
	}
	return 0, fmt.Errorf("values of Go type %T have no natural order", a)
}

func compareBools(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// javaCompareDoubles is Double.compare: -0.0 < 0.0, NaN is greater than
// everything else and equal to itself.
func javaCompareDoubles(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		return compareBools(an, bn)
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return compareBools(!math.Signbit(a), !math.Signbit(b))
}

// javaCompareStrings orders strings by UTF-16 code units, as
// String.compareTo does.
func javaCompareStrings(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra == utf8.RuneError && rb == utf8.RuneError && na == 1 && nb == 1 && a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		if ra != rb {
			if ka, kb := utf16Lead(ra), utf16Lead(rb); ka != kb {
				return cmp.Compare(ka, kb)
			}
			return cmp.Compare(ra, rb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Lead is the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}

// compareSignedBytes is ByteBuffer.compareTo: bytes compare as signed.
func compareSignedBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return cmp.Compare(int8(a[i]), int8(b[i]))
		}
	}
	return cmp.Compare(len(a), len(b))
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
