package avro

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/format/internal/javafloat"
)

// maxRenderDepth bounds the nesting Render follows (a recursive schema
// whose records hold themselves reads no byte per level).
const maxRenderDepth = 64

// Render reads payload (no Confluent header) written with schema and
// prints it as ksqlDB's PRINT shows Avro records: the value Confluent's
// KafkaAvroDeserializer returns, as Java prints it. A record (or map) is
// Avro's GenericData.toString, {"F": 1, "S": "x", "N": null} (strings
// JSON-escaped, bytes {"bytes": "…"}, unions as their branch's value,
// logical types as their underlying values, a map's entries in its
// HashMap's order); a bare primitive is Java's toString of it (a string
// unquoted).
func Render(schema string, refs Refs, payload []byte) (string, error) {
	s, err := parse(schema, refs)
	if err != nil {
		return "", err
	}
	r := &reader{b: payload}
	var buf []byte
	if p, ok := deref(s).(*hamba.PrimitiveSchema); ok && p.Type() == hamba.String {
		b, err := r.bytes("")
		if err != nil {
			return "", err
		}
		buf = append(buf, b...)
	} else if buf, err = r.render(buf, s, 0); err != nil {
		return "", err
	}
	if r.off != len(r.b) {
		return "", r.fail("", "%d bytes after the value", len(r.b)-r.off)
	}
	return string(buf), nil
}

func (r *reader) render(buf []byte, s hamba.Schema, depth int) ([]byte, error) {
	if depth > maxRenderDepth {
		return buf, r.fail("", "nested deeper than %d levels", maxRenderDepth)
	}
	switch s := deref(s).(type) {
	case *hamba.NullSchema:
		return append(buf, "null"...), nil
	case *hamba.PrimitiveSchema:
		return r.renderPrimitive(buf, s.Type())
	case *hamba.FixedSchema:
		b, err := r.fixed("", s.Size())
		return renderFixed(buf, b), err
	case *hamba.EnumSchema:
		return r.renderEnum(buf, s)
	case *hamba.UnionSchema:
		i, err := r.long("")
		if err != nil {
			return buf, err
		}
		if i < 0 || i >= int64(len(s.Types())) {
			return buf, r.fail("", "union branch %d out of range (the union has %d)", i, len(s.Types()))
		}
		return r.render(buf, s.Types()[i], depth+1)
	case *hamba.ArraySchema:
		return r.renderBlocks(buf, s.Items(), false, depth)
	case *hamba.MapSchema:
		return r.renderMap(buf, s.Values(), depth)
	case *hamba.RecordSchema:
		return r.renderRecord(buf, s, depth)
	}
	return buf, r.fail("", "cannot print a %s", s.Type())
}

func (r *reader) renderPrimitive(buf []byte, t hamba.Type) ([]byte, error) {
	switch t {
	case hamba.Null:
		return append(buf, "null"...), nil
	case hamba.Boolean:
		v, err := r.boolean("")
		return strconv.AppendBool(buf, v), err
	case hamba.Int:
		v, err := r.int("")
		return strconv.AppendInt(buf, int64(v), 10), err
	case hamba.Long:
		v, err := r.long("")
		return strconv.AppendInt(buf, v, 10), err
	case hamba.Float:
		v, err := r.float("")
		return appendJavaNumber(buf, float64(v), 32), err
	case hamba.Double:
		v, err := r.double("")
		return appendJavaNumber(buf, v, 64), err
	case hamba.String:
		b, err := r.bytes("")
		return appendJavaQuoted(buf, string(b)), err
	case hamba.Bytes:
		b, err := r.bytes("")
		return appendBytesValue(buf, b), err
	}
	return buf, r.fail("", "cannot print a %s", t)
}

func (r *reader) renderEnum(buf []byte, s *hamba.EnumSchema) ([]byte, error) {
	i, err := r.long("")
	if err != nil {
		return buf, err
	}
	if i < 0 || i >= int64(len(s.Symbols())) {
		return buf, r.fail("", "enum index %d out of range (%d symbols)", i, len(s.Symbols()))
	}
	return appendJavaQuoted(buf, s.Symbols()[i]), nil
}

func (r *reader) renderRecord(buf []byte, s *hamba.RecordSchema, depth int) ([]byte, error) {
	buf = append(buf, '{')
	for i, f := range s.Fields() {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(appendJavaQuoted(buf, f.Name()), ": "...)
		var err error
		if buf, err = r.render(buf, f.Type(), depth+1); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}

// renderMap prints a map {"k": v, …} in the order ksqlDB's PRINT shows
// it: Avro's GenericDatumReader reads a map into new HashMap<>(n), whose
// toString iterates by hash bucket (Utf8.hashCode, over the key's UTF-8
// bytes as Java's signed bytes), entries of one bucket in the order read.
func (r *reader) renderMap(buf []byte, values hamba.Schema, depth int) ([]byte, error) {
	var entries []renderedEntry
	for {
		n, err := r.blockCount("", 1)
		if err != nil || n == 0 {
			return appendMapEntries(buf, entries), err
		}
		for ; n > 0; n-- {
			k, err := r.bytes("")
			if err != nil {
				return buf, err
			}
			e := renderedEntry{key: string(k), text: appendJavaQuoted(nil, string(k))}
			e.text = append(e.text, ": "...)
			if e.text, err = r.render(e.text, values, depth+1); err != nil {
				return buf, err
			}
			entries = append(entries, e)
		}
	}
}

// renderedEntry is one map entry read: its key, and its text "k": v.
type renderedEntry struct {
	key  string
	text []byte
}

func appendMapEntries(buf []byte, entries []renderedEntry) []byte {
	size := javaTableSize(len(entries))
	bucket := func(k string) uint32 {
		h := utf8Hash(k)
		return (h ^ h>>16) & uint32(size-1)
	}
	slices.SortStableFunc(entries, func(a, b renderedEntry) int { return cmp.Compare(bucket(a.key), bucket(b.key)) })
	buf = append(buf, '{')
	for i, e := range entries {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, e.text...)
	}
	return append(buf, '}')
}

// javaTableSize is the table size of new HashMap<>(n) after n puts: the
// next power of two, doubled while the load factor 0.75 is exceeded.
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

// utf8Hash is Avro's Utf8.hashCode: h*31 + b over the bytes, each a
// Java (signed) byte.
func utf8Hash(s string) uint32 {
	var h uint32
	for i := 0; i < len(s); i++ {
		h = 31*h + uint32(int32(int8(s[i])))
	}
	return h
}

// renderBlocks prints an array [a, b] or (keys) a map {"k": v}.
func (r *reader) renderBlocks(buf []byte, items hamba.Schema, keys bool, depth int) ([]byte, error) {
	open, end := byte('['), byte(']')
	if keys {
		open, end = '{', '}'
	}
	buf = append(buf, open)
	for first := true; ; {
		n, err := r.blockCount("", 1)
		if err != nil || n == 0 {
			return append(buf, end), err
		}
		for ; n > 0; n-- {
			if !first {
				buf = append(buf, ", "...)
			}
			first = false
			if keys {
				k, err := r.bytes("")
				if err != nil {
					return buf, err
				}
				buf = append(appendJavaQuoted(buf, string(k)), ": "...)
			}
			if buf, err = r.render(buf, items, depth+1); err != nil {
				return buf, err
			}
		}
	}
}

// appendJavaNumber writes a float as GenericData.toString does: Java's
// toString, NaN and the infinities quoted.
func appendJavaNumber(buf []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(javafloat.Append(append(buf, '"'), f, bits), '"')
	}
	return javafloat.Append(buf, f, bits)
}

// appendJavaQuoted writes s quoted as GenericData.writeEscapedString
// does: JSON's escapes, control characters (and U+007F–U+009F,
// U+2000–U+20FF) as \uXXXX.
func appendJavaQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for _, c := range s {
		switch c {
		case '"':
			buf = append(buf, `\"`...)
		case '\\':
			buf = append(buf, `\\`...)
		case '\b':
			buf = append(buf, `\b`...)
		case '\f':
			buf = append(buf, `\f`...)
		case '\n':
			buf = append(buf, `\n`...)
		case '\r':
			buf = append(buf, `\r`...)
		case '\t':
			buf = append(buf, `\t`...)
		default:
			if c < 0x20 || c >= 0x7f && c <= 0x9f || c >= 0x2000 && c <= 0x20ff {
				buf = appendUnicodeEscape(buf, c)
			} else {
				buf = utf8.AppendRune(buf, c)
			}
		}
	}
	return append(buf, '"')
}

func appendUnicodeEscape(buf []byte, c rune) []byte {
	const hex = "0123456789ABCDEF"
	return append(buf, '\\', 'u', hex[c>>12&15], hex[c>>8&15], hex[c>>4&15], hex[c&15])
}

// appendBytesValue writes bytes as GenericData.toString does:
// {"bytes": "…"}, each byte a character (ISO-8859-1), escaped as a string.
func appendBytesValue(buf, b []byte) []byte {
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return append(appendJavaQuoted(append(buf, `{"bytes": `...), string(rs)), '}')
}

// renderFixed writes a fixed as Java prints its bytes: [1, -2, 3].
func renderFixed(buf, b []byte) []byte {
	buf = append(buf, '[')
	for i, c := range b {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendInt(buf, int64(int8(c)), 10)
	}
	return append(buf, ']')
}
