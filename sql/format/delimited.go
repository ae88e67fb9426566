package format

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// delimitedCodec is the DELIMITED format: one CSV record (Apache
// commons-csv DEFAULT rules, which ksqlDB uses) with one field per column.
// An empty field is NULL for every type; NULL is written as an empty
// field.
type delimitedCodec struct {
	cols  []types.Column
	delim []byte // the delimiter rune, UTF-8 encoded
}

var _ Codec = (*delimitedCodec)(nil)

func newDelimitedCodec(cols []types.Column, delim rune) *delimitedCodec {
	return &delimitedCodec{cols: cols, delim: utf8.AppendRune(nil, delim)}
}

// Decode parses the first CSV record of data into dst.
func (c *delimitedCodec) Decode(data []byte, dst []any) error {
	if len(c.cols) == 0 {
		return nil
	}
	p := csvParser{data: data, delim: c.delim}
	n := 0
	for more := true; more; n++ {
		field, last, err := p.field()
		if err != nil {
			return err
		}
		more = !last
		if n < len(dst) {
			if dst[n], err = c.parse(&p, n, field); err != nil {
				return err
			}
		}
	}
	if n != len(c.cols) {
		return &DecodeError{Format: Delimited, Offset: -1, Want: strconv.Itoa(len(c.cols)) + " fields",
			Text: excerpt(data, 0), Msg: "column count mismatch: got " + strconv.Itoa(n) + " fields"}
	}
	return nil
}

// parse converts field text to column i's type; empty is NULL.
func (c *delimitedCodec) parse(p *csvParser, i int, field []byte) (any, error) {
	if len(field) == 0 {
		return nil, nil
	}
	if c.cols[i].Type.Kind == types.KindString {
		return p.fieldString(field), nil
	}
	v, err := parseText(field, c.cols[i].Type)
	if err != nil {
		return nil, &DecodeError{Format: Delimited, Column: "`" + c.cols[i].Name + "`",
			Want: c.cols[i].Type.String(), Text: excerptBytes(field), Offset: p.fieldStart, Msg: err.Error()}
	}
	return v, nil
}

func excerptBytes(b []byte) string { return excerpt(b, 0) }

// parseText converts the text of a DELIMITED field (or any primitive in
// text form) to the Go value of t.
func parseText(b []byte, t *types.Type) (any, error) {
	switch t.Kind {
	case types.KindString:
		return string(b), nil
	case types.KindBoolean:
		// Java's Boolean.parseBoolean: anything but "true" is false.
		return strings.EqualFold(string(b), "true"), nil
	case types.KindInteger, types.KindDate, types.KindTime:
		return parseInt32Text(b, t)
	case types.KindBigint, types.KindTimestamp:
		return parseInt64Text(b, t)
	case types.KindDouble:
		f, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil && !isRangeErr(err) {
			return nil, errNotA(t)
		}
		return f, nil
	case types.KindDecimal:
		return parseDecimal(string(b), t)
	case types.KindBytes:
		out, ok := decodeBase64(b)
		if !ok {
			return nil, errText("invalid base64")
		}
		return out, nil
	}
	return nil, errText("unsupported type " + t.String())
}

type errText string

func (e errText) Error() string { return string(e) }

func errNotA(t *types.Type) error { return errText("not a valid " + t.Kind.String()) }

func parseInt32Text(b []byte, t *types.Type) (any, error) {
	v, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return nil, errNotA(t)
	}
	switch t.Kind {
	case types.KindDate:
		return types.Date(v), nil
	case types.KindTime:
		return types.Time(v), nil
	}
	return int32(v), nil
}

func parseInt64Text(b []byte, t *types.Type) (any, error) {
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return nil, errNotA(t)
	}
	if t.Kind == types.KindTimestamp {
		return types.Timestamp(v), nil
	}
	return v, nil
}

// Encode appends vals as one CSV record (no line terminator), quoting
// fields the way commons-csv's MINIMAL mode does.
func (c *delimitedCodec) Encode(buf []byte, vals []any) ([]byte, error) {
	if buf == nil {
		buf = make([]byte, 0, 64)
	}
	for i, col := range c.cols {
		if i > 0 {
			buf = append(buf, c.delim...)
		}
		if isNull(vals[i]) {
			continue
		}
		start := len(buf)
		var err error
		if buf, err = appendText(buf, vals[i], col.Type); err != nil {
			return buf, err
		}
		if c.needsQuotes(buf[start:], i == 0) {
			field := string(buf[start:])
			buf = appendQuoted(buf[:start], field)
		}
	}
	return buf, nil
}

// appendText appends the DELIMITED text of a primitive value of type t.
func appendText(buf []byte, v any, t *types.Type) ([]byte, error) {
	switch x := v.(type) {
	case string:
		if t.Kind == types.KindString {
			return append(buf, x...), nil
		}
	case bool:
		if t.Kind == types.KindBoolean {
			return strconv.AppendBool(buf, x), nil
		}
	case float64:
		if t.Kind == types.KindDouble {
			return appendJavaDouble(buf, x), nil
		}
	case *apd.Decimal:
		if t.Kind == types.KindDecimal {
			return appendDecimal(buf, x, t)
		}
	case []byte:
		if t.Kind == types.KindBytes {
			return base64.StdEncoding.AppendEncode(buf, x), nil
		}
	default:
		if i, ok := integerOf(v, t); ok {
			return strconv.AppendInt(buf, i, 10), nil
		}
	}
	return buf, typeMismatch(v, t)
}

// integerOf returns the value of an integer-represented type (INTEGER,
// BIGINT, TIMESTAMP, DATE, TIME) when v's Go type matches t.
func integerOf(v any, t *types.Type) (int64, bool) {
	switch x := v.(type) {
	case types.Timestamp:
		return int64(x), t.Kind == types.KindTimestamp
	case types.Date:
		return int64(x), t.Kind == types.KindDate
	case types.Time:
		return int64(x), t.Kind == types.KindTime
	}
	if t.Kind == types.KindInteger || t.Kind == types.KindBigint {
		return asInt64(v)
	}
	return 0, false
}

// needsQuotes applies commons-csv's MINIMAL quoting rules: an empty first
// field; a first field starting with anything but an ASCII letter or
// digit; any field starting with a character <= '#', containing CR, LF,
// '"' or the delimiter, or ending with a character <= ' '.
func (c *delimitedCodec) needsQuotes(f []byte, first bool) bool {
	if len(f) == 0 {
		return first
	}
	b := f[0]
	alnum := b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z'
	if first && !alnum || b <= '#' {
		return true
	}
	if bytes.ContainsAny(f, "\r\n\"") || bytes.Contains(f, c.delim) {
		return true
	}
	return f[len(f)-1] <= ' '
}

func appendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			buf = append(buf, '"')
		}
		buf = append(buf, s[i])
	}
	return append(buf, '"')
}

// csvParser reads the fields of the first record of a CSV text.
type csvParser struct {
	data       []byte
	delim      []byte
	pos        int
	fieldStart int
	quoted     bool   // the last field was quoted (and copied)
	text       string // data as a string, made for the first string field
}

// fieldString returns the last field as a string: a substring of the
// record's text for unquoted fields, so a record costs one allocation for
// all its strings.
func (p *csvParser) fieldString(field []byte) string {
	if p.quoted {
		return string(field)
	}
	if p.text == "" {
		p.text = string(p.data)
	}
	return p.text[p.fieldStart : p.fieldStart+len(field)]
}

// field returns the next field and whether it ends the record.
func (p *csvParser) field() (field []byte, last bool, err error) {
	p.fieldStart = p.pos
	p.quoted = p.pos < len(p.data) && p.data[p.pos] == '"'
	if p.quoted {
		return p.quotedField()
	}
	i := p.pos
	for i < len(p.data) && p.data[i] != '\n' && p.data[i] != '\r' && !p.delimAt(i) {
		i++
	}
	field = p.data[p.pos:i]
	return field, p.endField(i), nil
}

func (p *csvParser) delimAt(i int) bool {
	return p.data[i] == p.delim[0] && bytes.HasPrefix(p.data[i:], p.delim)
}

// endField moves past the delimiter at i, reporting whether the record
// ended instead (end of input or line).
func (p *csvParser) endField(i int) bool {
	if i < len(p.data) && p.delimAt(i) {
		p.pos = i + len(p.delim)
		return false
	}
	p.pos = len(p.data)
	return true
}

// quotedField reads a quoted field: "" stands for '"'; after the closing quote
// only white space may precede the delimiter or the end of the record.
func (p *csvParser) quotedField() ([]byte, bool, error) {
	var out []byte
	i := p.pos + 1
	for {
		j := bytes.IndexByte(p.data[i:], '"')
		if j < 0 {
			return nil, false, p.fail(p.pos, "EOF reached before quoted field finished")
		}
		out = append(out, p.data[i:i+j]...)
		i += j + 1
		if i < len(p.data) && p.data[i] == '"' {
			out = append(out, '"')
			i++
			continue
		}
		break
	}
	for i < len(p.data) && (p.data[i] == ' ' || p.data[i] == '\t') && !p.delimAt(i) {
		i++
	}
	if i < len(p.data) && !p.delimAt(i) && p.data[i] != '\n' && p.data[i] != '\r' {
		return nil, false, p.fail(i, "invalid character between quoted field and delimiter")
	}
	if out == nil {
		out = []byte{}
	}
	return out, p.endField(i), nil
}

func (p *csvParser) fail(off int, msg string) error {
	return &DecodeError{Format: Delimited, Offset: off, Text: excerpt(p.data, off), Msg: msg}
}
