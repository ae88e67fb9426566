package java

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
)

// The JSON functions need a parser that behaves like the Jackson tree
// model ksqlDB uses: object keys keep their document order (a repeated key
// keeps its first position and its last value), numbers keep their exact
// text, the first value of the input is read and anything after it is
// ignored, and an empty input is "missing" rather than an error.

// JSONKind is the type of a JSONNode.
type JSONKind uint8

const (
	JSONNull JSONKind = iota
	JSONBool
	JSONInt   // integer literal: text holds its digits
	JSONFloat // literal with a fraction or exponent: decimal holds it exactly
	JSONString
	JSONArray
	JSONObject
)

// JSONNode is one parsed JSON value.
type JSONNode struct {
	Kind    JSONKind
	Bool    bool
	Text    string // JSONInt digits, JSONString value
	Decimal *apd.Decimal
	Elems   []*JSONNode // JSONArray elements, JSONObject values
	Keys    []string    // JSONObject keys, parallel to Elems
}

// Field returns the value of key in an object node, or nil.
func (n *JSONNode) Field(key string) *JSONNode {
	for i, k := range n.Keys {
		if k == key {
			return n.Elems[i]
		}
	}
	return nil
}

// maxJSONDepth bounds nesting, as Jackson's stream constraints do.
const maxJSONDepth = 1000

// EachArrayElement reads s as Jackson's streaming parser does when a
// function walks a JSON array without building it: it returns false when
// s does not start with '[', and otherwise parses one element at a time,
// passing each to visit until visit returns false. A syntax error stops
// the walk with the error; what follows the point where the walk stopped
// is never read.
func EachArrayElement(s string, visit func(*JSONNode) bool) (bool, error) {
	p := &jsonParser{s: s, depth: 1}
	p.skipSpace()
	if p.peek() != '[' {
		return false, nil
	}
	p.pos++
	p.skipSpace()
	if p.peek() == ']' {
		return true, nil
	}
	for {
		v, err := p.value()
		if err != nil || !visit(v) {
			return true, err
		}
		if done, err := p.separator(']'); done || err != nil {
			return true, err
		}
	}
}

// jsonParser is a recursive-descent parser over one input string.
type jsonParser struct {
	s     string
	pos   int
	depth int
}

// ParseJSON parses the first JSON value of s. It returns nil and no error
// when s holds only whitespace (Jackson's missing node).
func ParseJSON(s string) (*JSONNode, error) {
	p := &jsonParser{s: s}
	p.skipSpace()
	if p.pos == len(s) {
		return nil, nil
	}
	return p.value()
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func (p *jsonParser) value() (*JSONNode, error) {
	p.skipSpace()
	switch c := p.peek(); {
	case c == '{':
		return p.nested(p.object)
	case c == '[':
		return p.nested(p.array)
	case c == '"':
		s, err := p.str()
		return &JSONNode{Kind: JSONString, Text: s}, err
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c >= 'a' && c <= 'z':
		return p.literal()
	case p.pos == len(p.s):
		return nil, p.errorf("unexpected end of input")
	default:
		return nil, p.errorf("unexpected character %q", c)
	}
}

func (p *jsonParser) nested(parse func() (*JSONNode, error)) (*JSONNode, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxJSONDepth {
		return nil, p.errorf("nesting deeper than %d", maxJSONDepth)
	}
	p.pos++ // the opening bracket
	return parse()
}

func (p *jsonParser) array() (*JSONNode, error) {
	n := &JSONNode{Kind: JSONArray, Elems: []*JSONNode{}}
	p.skipSpace()
	if p.peek() == ']' {
		p.pos++
		return n, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Elems = append(n.Elems, v)
		if done, err := p.separator(']'); done || err != nil {
			return n, err
		}
	}
}

// separator consumes a ',' (false) or the closing byte (true).
func (p *jsonParser) separator(closing byte) (bool, error) {
	p.skipSpace()
	switch p.peek() {
	case ',':
		p.pos++
		return false, nil
	case closing:
		p.pos++
		return true, nil
	}
	return false, p.errorf("expected ',' or '%c'", closing)
}

func (p *jsonParser) object() (*JSONNode, error) {
	n := &JSONNode{Kind: JSONObject, Elems: []*JSONNode{}, Keys: []string{}}
	p.skipSpace()
	if p.peek() == '}' {
		p.pos++
		return n, nil
	}
	for {
		p.skipSpace()
		if p.peek() != '"' {
			return nil, p.errorf("expected a field name")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.peek() != ':' {
			return nil, p.errorf("expected ':'")
		}
		p.pos++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.Put(key, v)
		if done, err := p.separator('}'); done || err != nil {
			return n, err
		}
	}
}

// Put sets key, replacing the value of a repeated key in place.
func (n *JSONNode) Put(key string, v *JSONNode) {
	for i, k := range n.Keys {
		if k == key {
			n.Elems[i] = v
			return
		}
	}
	n.Keys = append(n.Keys, key)
	n.Elems = append(n.Elems, v)
}

func (p *jsonParser) literal() (*JSONNode, error) {
	start := p.pos
	for p.pos < len(p.s) && isJSONIdentByte(p.s[p.pos]) {
		p.pos++
	}
	switch word := p.s[start:p.pos]; word {
	case "true", "false":
		return &JSONNode{Kind: JSONBool, Bool: word == "true"}, nil
	case "null":
		return &JSONNode{Kind: JSONNull}, nil
	default:
		p.pos = start
		return nil, p.errorf("unrecognized token %q", word)
	}
}

func isJSONIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func (p *jsonParser) number() (*JSONNode, error) {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	if err := p.intDigits(); err != nil {
		return nil, err
	}
	isFloat := false
	if p.peek() == '.' {
		p.pos++
		isFloat = true
		if err := p.digits(); err != nil {
			return nil, err
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		isFloat = true
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if err := p.digits(); err != nil {
			return nil, err
		}
	}
	if p.depth == 0 && p.pos < len(p.s) && !strings.ContainsRune(" \t\r\n", rune(p.s[p.pos])) {
		return nil, p.errorf("unexpected character %q after a number", p.s[p.pos])
	}
	return numberNode(p.s[start:p.pos], isFloat)
}

// intDigits reads the integer part: "0" or a digit sequence without a
// leading zero.
func (p *jsonParser) intDigits() error {
	if p.peek() == '0' {
		p.pos++
		if c := p.peek(); c >= '0' && c <= '9' {
			return p.errorf("leading zeroes are not allowed")
		}
		return nil
	}
	return p.digits()
}

func (p *jsonParser) digits() error {
	start := p.pos
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if p.pos == start {
		return p.errorf("expected a digit")
	}
	return nil
}

func numberNode(text string, isFloat bool) (*JSONNode, error) {
	if !isFloat {
		if text == "-0" {
			text = "0"
		}
		return &JSONNode{Kind: JSONInt, Text: text}, nil
	}
	d, _, err := apd.NewFromString(text)
	if err != nil {
		return nil, fmt.Errorf("invalid JSON number %q: %w", text, err)
	}
	return &JSONNode{Kind: JSONFloat, Decimal: UnsignedZero(d)}, nil
}

// str reads a quoted string, decoding escapes.
func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.pos >= len(p.s) {
			return "", p.errorf("unterminated string")
		}
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c < 0x20:
			return "", p.errorf("unescaped control character in a string")
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

func (p *jsonParser) escape(b *strings.Builder) error {
	p.pos++ // backslash
	if p.pos >= len(p.s) {
		return p.errorf("unterminated escape")
	}
	c := p.s[p.pos]
	p.pos++
	if r, ok := simpleEscape(c); ok {
		b.WriteByte(r)
		return nil
	}
	if c != 'u' {
		return p.errorf("unrecognized escape '\\%c'", c)
	}
	r, err := p.hex4()
	if err != nil {
		return err
	}
	if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.pos:], "\\u") {
		save := p.pos
		p.pos += 2
		if r2, err := p.hex4(); err == nil && utf16.DecodeRune(r, r2) != utf8.RuneError {
			r = utf16.DecodeRune(r, r2)
		} else {
			p.pos = save
		}
	}
	b.WriteRune(r) // a lone surrogate becomes U+FFFD
	return nil
}

// simpleEscape decodes the one-character escapes of JSON strings.
func simpleEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

func (p *jsonParser) hex4() (rune, error) {
	if p.pos+4 > len(p.s) {
		return 0, p.errorf("incomplete unicode escape")
	}
	v, err := strconv.ParseUint(p.s[p.pos:p.pos+4], 16, 32)
	if err != nil {
		return 0, p.errorf("invalid unicode escape")
	}
	p.pos += 4
	return rune(v), nil
}

// JSONText renders n compactly. plain selects BigDecimal.toPlainString
// for fractional numbers (ksqlDB's mapper writes them so); otherwise they
// use BigDecimal.toString, as JsonNode.toString does.
func JSONText(n *JSONNode, plain bool) string {
	var b strings.Builder
	writeJSONNode(&b, n, plain)
	return b.String()
}

func writeJSONNode(b *strings.Builder, n *JSONNode, plain bool) {
	switch n.Kind {
	case JSONNull:
		b.WriteString("null")
	case JSONBool:
		b.WriteString(strconv.FormatBool(n.Bool))
	case JSONInt:
		b.WriteString(n.Text)
	case JSONFloat:
		if plain {
			b.WriteString(FormatPlainDecimal(n.Decimal))
		} else {
			b.WriteString(FormatDecimal(n.Decimal))
		}
	case JSONString:
		WriteJSONString(b, n.Text)
	case JSONArray:
		writeJSONArray(b, n.Elems, plain)
	case JSONObject:
		writeJSONObject(b, n, plain)
	}
}

func writeJSONArray(b *strings.Builder, elems []*JSONNode, plain bool) {
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONNode(b, e, plain)
	}
	b.WriteByte(']')
}

func writeJSONObject(b *strings.Builder, n *JSONNode, plain bool) {
	b.WriteByte('{')
	for i, k := range n.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		WriteJSONString(b, k)
		b.WriteByte(':')
		writeJSONNode(b, n.Elems[i], plain)
	}
	b.WriteByte('}')
}

// WriteJSONString quotes s as Jackson does: '"', '\\' and control
// characters are escaped (short forms for \b \t \n \f \r, otherwise
// \u00XX with upper-case hex); everything else is written as is.
func WriteJSONString(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20:
			b.WriteByte(c)
		case shortEscape(c) != 0:
			b.WriteByte('\\')
			b.WriteByte(shortEscape(c))
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		}
	}
	b.WriteByte('"')
}

// shortEscape is the letter of a control character's short escape, or 0.
func shortEscape(c byte) byte {
	switch c {
	case '\b':
		return 'b'
	case '\t':
		return 't'
	case '\n':
		return 'n'
	case '\f':
		return 'f'
	case '\r':
		return 'r'
	}
	return 0
}
