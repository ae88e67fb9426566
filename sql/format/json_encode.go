package format

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// jsonStyle selects how temporal values are written: as numbers in topics
// (epoch millis, days, millis of day) or as text in REST API rows.
type jsonStyle uint8

const (
	topicStyle jsonStyle = iota
	restStyle
)

// appendJSON appends v (of SQL type t) as JSON. It fails only when v's Go
// type does not match t (or a DECIMAL does not fit t).
func appendJSON(buf []byte, v any, t *types.Type, style jsonStyle) ([]byte, error) {
	if isNull(v) {
		return append(buf, "null"...), nil
	}
	switch t.Kind {
	case types.KindArray, types.KindMap, types.KindStruct:
		return appendJSONCompound(buf, v, t, style)
	case types.KindTimestamp, types.KindDate, types.KindTime:
		return appendJSONTemporal(buf, v, t, style)
	}
	return appendJSONPrimitive(buf, v, t)
}

// jsonColumn is one member of the JSON object Encode writes: its name
// quoted with the ':' after it (and the ',' before it but for the first
// member), and the Go type its SQL type is held as, chosen once when the
// codec is built so that a value of that type is written after one type
// assertion rather than appendJSON's switches. Any other value (NULL,
// int32 or int for a BIGINT, a mismatch) goes through appendJSON, so the
// bytes and the errors are appendJSON's.
type jsonColumn struct {
	prefix []byte
	kind   jsonKind
	t      *types.Type
}

// jsonKind is the Go type a jsonColumn writes without appendJSON.
type jsonKind uint8

const (
	jsonOther     jsonKind = iota // appendJSON for every value
	jsonString                    // string
	jsonBigint                    // int64
	jsonInteger                   // int32
	jsonBoolean                   // bool
	jsonDouble                    // float64
	jsonTimestamp                 // types.Timestamp, as a number (topicStyle)
	jsonDecimal                   // a non-nil *apd.Decimal
)

func newJSONColumn(prefix []byte, t *types.Type) jsonColumn {
	return jsonColumn{prefix: prefix, kind: jsonKindOf(t), t: t}
}

func jsonKindOf(t *types.Type) jsonKind {
	switch t.Kind {
	case types.KindString:
		return jsonString
	case types.KindBigint:
		return jsonBigint
	case types.KindInteger:
		return jsonInteger
	case types.KindBoolean:
		return jsonBoolean
	case types.KindDouble:
		return jsonDouble
	case types.KindTimestamp:
		return jsonTimestamp
	case types.KindDecimal:
		return jsonDecimal
	}
	return jsonOther
}

// append appends v as a value of the column's type in topicStyle.
func (c *jsonColumn) append(buf []byte, v any) ([]byte, error) {
	switch c.kind {
	case jsonString:
		if s, ok := v.(string); ok {
			return appendJSONString(buf, s), nil
		}
	case jsonBigint:
		if i, ok := v.(int64); ok {
			return strconv.AppendInt(buf, i, 10), nil
		}
	case jsonInteger:
		if i, ok := v.(int32); ok {
			return strconv.AppendInt(buf, int64(i), 10), nil
		}
	case jsonBoolean:
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(buf, b), nil
		}
	case jsonDouble:
		if f, ok := v.(float64); ok {
			return appendJSONDouble(buf, f), nil
		}
	case jsonTimestamp:
		if ts, ok := v.(types.Timestamp); ok {
			return strconv.AppendInt(buf, int64(ts), 10), nil
		}
	case jsonDecimal:
		if d, ok := v.(*apd.Decimal); ok && d != nil {
			return appendJSONDecimal(buf, d, c.t)
		}
	}
	return appendJSON(buf, v, c.t, topicStyle)
}

func appendJSONPrimitive(buf []byte, v any, t *types.Type) ([]byte, error) {
	switch x := v.(type) {
	case string:
		if t.Kind == types.KindString {
			return appendJSONString(buf, x), nil
		}
	case bool:
		if t.Kind == types.KindBoolean {
			return strconv.AppendBool(buf, x), nil
		}
	case float64:
		if t.Kind == types.KindDouble {
			return appendJSONDouble(buf, x), nil
		}
	case *apd.Decimal:
		if t.Kind == types.KindDecimal {
			return appendJSONDecimal(buf, x, t)
		}
	case []byte:
		if t.Kind == types.KindBytes {
			return appendBase64(buf, x), nil
		}
	default:
		if i, ok := integerOf(v, t); ok {
			return strconv.AppendInt(buf, i, 10), nil
		}
	}
	return buf, typeMismatch(v, t)
}

func appendJSONCompound(buf []byte, v any, t *types.Type, style jsonStyle) ([]byte, error) {
	switch x := v.(type) {
	case []any:
		if t.Kind == types.KindArray {
			return appendJSONArray(buf, x, t, style)
		}
	case map[string]any:
		if t.Kind == types.KindMap {
			return appendJSONMap(buf, x, t, style)
		}
	case *types.StructValue:
		if t.Kind == types.KindStruct {
			return appendJSONStruct(buf, x, t, style)
		}
	}
	return buf, typeMismatch(v, t)
}

// isNull reports whether v is SQL NULL: nil, or a nil pointer of a
// pointer-represented type (DECIMAL, STRUCT).
func isNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case *apd.Decimal:
		return x == nil
	case *types.StructValue:
		return x == nil
	}
	return false
}

func typeMismatch(v any, t *types.Type) error {
	return fmt.Errorf("format: cannot serialize a Go %T as %s", v, t)
}

// asInt64 accepts the Go integer representations (int32 for INTEGER, int64
// for BIGINT, and int for convenience).
func asInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}

// appendJSONDouble writes a double as Jackson does: Java's Double.toString,
// with NaN and the infinities quoted.
func appendJSONDouble(buf []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		buf = append(buf, '"')
		buf = appendJavaDouble(buf, f)
		return append(buf, '"')
	}
	return appendJavaDouble(buf, f)
}

func appendBase64(buf []byte, b []byte) []byte {
	buf = append(buf, '"')
	buf = base64.StdEncoding.AppendEncode(buf, b)
	return append(buf, '"')
}

// appendJSONTemporal writes TIMESTAMP, DATE and TIME as numbers in topics
// and as text in REST rows.
func appendJSONTemporal(buf []byte, v any, t *types.Type, style jsonStyle) ([]byte, error) {
	i, ok := integerOf(v, t)
	switch {
	case !ok:
		return buf, typeMismatch(v, t)
	case style == topicStyle:
		return strconv.AppendInt(buf, i, 10), nil
	}
	buf = append(buf, '"')
	switch t.Kind {
	case types.KindTimestamp:
		buf = appendTimestampText(buf, types.Timestamp(i))
	case types.KindDate:
		buf = appendDateText(buf, types.Date(i))
	default:
		buf = appendTimeText(buf, types.Time(i))
	}
	return append(buf, '"'), nil
}

func appendJSONArray(buf []byte, a []any, t *types.Type, style jsonStyle) ([]byte, error) {
	buf = append(buf, '[')
	for i, e := range a {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendJSON(buf, e, t.Elem, style); err != nil {
			return buf, err
		}
	}
	return append(buf, ']'), nil
}

// appendJSONMap writes map entries in key order, so output is stable.
func appendJSONMap(buf []byte, m map[string]any, t *types.Type, style jsonStyle) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(appendJSONString(buf, k), ':')
		var err error
		if buf, err = appendJSON(buf, m[k], t.Elem, style); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}

func appendJSONStruct(buf []byte, sv *types.StructValue, t *types.Type, style jsonStyle) ([]byte, error) {
	buf = append(buf, '{')
	for i, f := range t.Fields {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(appendJSONString(buf, f.Name), ':')
		var v any
		if i < len(sv.Values) {
			v = sv.Values[i]
		}
		var err error
		if buf, err = appendJSON(buf, v, f.Type, style); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string the way Jackson does: escapes
// for '"', '\\' and control characters only; invalid UTF-8 becomes U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if j := plainJSONRun(s, i); j > i {
			i = j
			continue
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || n != 1 {
				i += n
				continue
			}
			buf = append(buf, s[start:i]...)
			buf = append(buf, "\uFFFD"...)
			i++
			start = i
			continue
		}
		buf = append(buf, s[start:i]...)
		buf = appendEscape(buf, c)
		i++
		start = i
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// plainJSONRun returns the end of the run of 8-byte blocks of s from i
// on whose bytes are all ASCII that JSON writes as is (not a control
// character, '"' or '\\'). A block is tested word-wise: no byte has its
// high bit set, and subtracting 0x20 from each byte (or 1 from each byte
// xor '"' or '\\') borrows nowhere; the lowest byte that would need an
// escape always borrows, so the test is exact.
func plainJSONRun(s string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		ctl := x - ones*0x20
		quote := (x ^ ones*'"') - ones
		backslash := (x ^ ones*'\\') - ones
		if (x|ctl|quote|backslash)&highs != 0 {
			return i
		}
	}
	return i
}

func appendEscape(buf []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(buf, '\\', c)
	case '\n':
		return append(buf, '\\', 'n')
	case '\r':
		return append(buf, '\\', 'r')
	case '\t':
		return append(buf, '\\', 't')
	case '\b':
		return append(buf, '\\', 'b')
	case '\f':
		return append(buf, '\\', 'f')
	}
	return append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
