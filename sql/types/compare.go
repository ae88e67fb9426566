package types

import (
	"bytes"
	"cmp"
	"math"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// Value equality and the one ordering of values. Every place that orders
// SQL values uses CompareValues: the comparison operators of sql/expr (for
// non-numeric operands; numbers compare as Java's primitive operators do,
// in sql/expr), GREATEST and LEAST, ARRAY_SORT, ARRAY_MAX and ARRAY_MIN,
// the MIN, MAX and TOPK aggregates, and the key orders of MAP functions and
// TO_JSON_STRING (CompareStrings). ksqlDB implements all of them with the
// compareTo methods of the Java classes of the values, so one order serves
// them all: Double.compare (-0.0 < 0.0, NaN above +Infinity and equal to
// itself), String.compareTo (UTF-16 code units), ByteBuffer.compareTo
// (signed bytes) and BigDecimal.compareTo (numeric value: 1.0 equals 1.00).

// ValuesEqual reports whether two non-NULL values of the same SQL type are
// equal, comparing containers element by element (a NULL element equals
// only a NULL element) and decimals by numeric value.
func ValuesEqual(a, b any) bool {
	switch x := a.(type) {
	case *apd.Decimal:
		y, ok := b.(*apd.Decimal)
		return ok && x.Cmp(y) == 0
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case []any:
		y, ok := b.([]any)
		return ok && sliceEqual(x, y)
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && mapEqual(x, y)
	case *StructValue:
		y, ok := b.(*StructValue)
		return ok && sliceEqual(x.Values, y.Values)
	}
	return a == b
}

func elemEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return ValuesEqual(a, b)
}

func sliceEqual(x, y []any) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !elemEqual(x[i], y[i]) {
			return false
		}
	}
	return true
}

func mapEqual(x, y map[string]any) bool {
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		w, ok := y[k]
		if !ok || !elemEqual(v, w) {
			return false
		}
	}
	return true
}

// CompareValues orders two non-NULL values of the same orderable SQL type
// (numbers, strings, bytes, booleans, temporal types) as their Java
// classes' compareTo does. ok is false for types without an order
// (arrays, maps, structs).
func CompareValues(a, b any) (c int, ok bool) {
	switch x := a.(type) {
	case int32:
		return cmp.Compare(x, b.(int32)), true
	case int64:
		return cmp.Compare(x, b.(int64)), true
	case float64:
		return compareDoubles(x, b.(float64)), true
	case string:
		return CompareStrings(x, b.(string)), true
	case *apd.Decimal:
		return x.Cmp(b.(*apd.Decimal)), true
	case bool:
		return compareBool(x, b.(bool)), true
	case []byte:
		return compareSignedBytes(x, b.([]byte)), true
	case Timestamp:
		return cmp.Compare(x, b.(Timestamp)), true
	case Date:
		return cmp.Compare(x, b.(Date)), true
	case Time:
		return cmp.Compare(x, b.(Time)), true
	}
	return 0, false
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// compareDoubles is Double.compare: -0.0 < 0.0, NaN is greater than
// everything else and equal to itself. (The SQL operators <, = … on
// DOUBLEs are Java's primitive ones instead, where NaN is unordered and
// -0.0 = 0.0; sql/expr compiles those without CompareValues.)
func compareDoubles(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		return compareBool(an, bn)
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return compareBool(!math.Signbit(a), !math.Signbit(b))
}

// CompareStrings orders strings like Java's String.compareTo: by UTF-16
// code units, which differs from byte order only when characters above
// U+FFFF meet characters in U+E000..U+FFFF. Bytes that are not UTF-8
// compare as bytes, so that only equal strings compare 0.
func CompareStrings(a, b string) int {
	i := commonPrefix(a, b)
	for i > 0 && (continues(a, i) || continues(b, i)) {
		i-- // back to the start of the rune the strings differ in
	}
	a, b = a[i:], b[i:]
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

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// continues reports whether s[i] is a UTF-8 continuation byte.
func continues(s string, i int) bool { return i < len(s) && !utf8.RuneStart(s[i]) }

// utf16Lead is the first UTF-16 code unit of r.
func utf16Lead(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}

// compareSignedBytes orders byte strings like Java's ByteBuffer.compareTo:
// bytes compare as signed values.
func compareSignedBytes(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return cmp.Compare(int8(a[i]), int8(b[i]))
		}
	}
	return cmp.Compare(len(a), len(b))
}
