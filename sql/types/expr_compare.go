package types

import (
	"bytes"
	"cmp"
	"strings"
	"unicode/utf16"

	"github.com/cockroachdb/apd/v3"
)

// This file belongs to the sql/expr area: value equality and ordering
// shared by expression evaluation, functions and operators.

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
// (numbers, strings, bytes, booleans, temporal types). ok is false for
// types without an order.
func CompareValues(a, b any) (c int, ok bool) {
	switch x := a.(type) {
	case int32:
		return cmp.Compare(x, b.(int32)), true
	case int64:
		return cmp.Compare(x, b.(int64)), true
	case float64:
		return cmp.Compare(x, b.(float64)), true
	case string:
		return compareJavaStrings(x, b.(string)), true
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

// compareJavaStrings orders strings like Java's String.compareTo: by
// UTF-16 code units (which differs from byte order only when characters
// above U+FFFF meet characters in U+E000..U+FFFF).
func compareJavaStrings(a, b string) int {
	c := strings.Compare(a, b)
	if c == 0 || isASCII(a) && isASCII(b) {
		return c
	}
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := 0; i < len(ua) && i < len(ub); i++ {
		if ua[i] != ub[i] {
			return cmp.Compare(ua[i], ub[i])
		}
	}
	return cmp.Compare(len(ua), len(ub))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
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
