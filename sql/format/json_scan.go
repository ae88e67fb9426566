package format

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
)

// maxJSONDepth bounds the nesting of skipped JSON values so hostile input
// cannot exhaust the stack.
const maxJSONDepth = 512

// scanner is a minimal JSON tokenizer over one record. It never allocates
// except for strings that contain escapes or invalid UTF-8, the record's
// text (once) and the chunks of its arena.
type scanner struct {
	data  []byte
	pos   int
	depth int
	// text is data as a string, made on the first string value decoded:
	// strings without escapes are substrings of it, so a record costs one
	// allocation for all its strings.
	text string
	// arena holds the boxed strings of the record's values, so they cost
	// an allocation per chunk, not one each (sql/format/internal/boxes).
	arena boxes.Arena
	// task, when the codec is a task's own (NewTaskValueDecoder), holds
	// the strings and their boxes instead of text and arena, across
	// records.
	task *keyArena
}

// stringAt returns data[start:end] as a string sharing the record's text
// (or in the task's slab).
func (s *scanner) stringAt(start, end int) string {
	if s.task != nil {
		return s.task.text(s.data[start:end])
	}
	if s.text == "" {
		s.text = string(s.data)
	}
	return s.text[start:end]
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end. A NUL byte in
// the data is returned as nulByte, so that it is never taken for the end:
// a value that starts with one (a schema-registry serializer's magic byte)
// or that has one after its JSON is invalid, not a null or complete record.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	if c := s.data[s.pos]; c != 0 {
		return c
	}
	return nulByte
}

// nulByte stands for a NUL byte of the data in peek's answers; like NUL it
// starts no JSON token.
const nulByte = 0x01

// token returns the text of the value just consumed from start, bounded.
func (s *scanner) token(start int) string {
	end := min(s.pos, start+maxErrorText)
	return string(s.data[start:end])
}

func (s *scanner) fail(want, msg string) *DecodeError {
	return &DecodeError{Format: JSON, Want: want, Text: excerpt(s.data, s.pos), Offset: s.pos, Msg: msg}
}

func (s *scanner) syntax(want string) *DecodeError {
	if s.pos >= len(s.data) {
		return s.fail(want, "unexpected end of JSON input")
	}
	return s.fail(want, "invalid JSON")
}

// expect consumes c after optional white space.
func (s *scanner) expect(c byte) error {
	if s.peek() != c {
		return s.syntax("'" + string(c) + "'")
	}
	s.pos++
	return nil
}

// literal consumes one of null, true, false.
func (s *scanner) literal(lit string) error {
	end := s.pos + len(lit)
	if end > len(s.data) || string(s.data[s.pos:end]) != lit {
		return s.syntax(lit)
	}
	s.pos = end
	return nil
}

// str consumes a JSON string at s.pos (which holds '"') and returns its
// content. Without escapes the result aliases s.data; otherwise it is
// decoded into a new slice. Invalid UTF-8 is an error at its first bad
// byte, as in ksqlDB (Jackson: "Invalid UTF-8 start byte"), never
// replaced by U+FFFD: the replacement would lose the record's bytes
// silently.
func (s *scanner) str() ([]byte, error) {
	b, _, err := s.strSpan()
	return b, err
}

// strSpan is str that also reports where the content starts in s.data
// when it aliases s.data (-1 otherwise). It reads eight bytes at a time
// until one ends the string, starts an escape or is a control byte
// (strStop).
func (s *scanner) strSpan() ([]byte, int, error) {
	start := s.pos + 1
	i := start
	var high uint64 // the words passed, or'ed: their bytes past ASCII
	for i+8 <= len(s.data) {
		w := binary.LittleEndian.Uint64(s.data[i:])
		stop := strStop(w)
		if stop == 0 {
			high |= w
			i += 8
			continue
		}
		// The lowest byte strStop marks is one of those it looks for
		// (its false marks are above a true one).
		n := bits.TrailingZeros64(stop) &^ 7
		high |= w & (1<<n - 1)
		return s.strEnd(start, i+n/8, high&0x8080808080808080 == 0)
	}
	for ; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"' || c == '\\' || c < 0x20:
			return s.strEnd(start, i, high&0x8080808080808080 == 0)
		case c >= utf8.RuneSelf:
			high = 0x80
		}
	}
	s.pos = len(s.data)
	return nil, -1, s.syntax("'\"'")
}

// strEnd is strSpan at s.data[i], a quote, a backslash or a control byte,
// the content before it ASCII if ascii.
func (s *scanner) strEnd(start, i int, ascii bool) ([]byte, int, error) {
	switch s.data[i] {
	case '"':
		s.pos = i + 1
		raw := s.data[start:i]
		if !ascii && !utf8.Valid(raw) {
			return nil, -1, s.badUTF8(start)
		}
		return raw, start, nil
	case '\\':
		b, err := s.strSlow(start)
		return b, -1, err
	}
	s.pos = i
	return nil, -1, s.fail("string", "control character in JSON string")
}

// strStop marks (bit 7) the bytes of w that are '"', '\\' or below 0x20,
// where w's bytes are the string's in little-endian order. A byte above
// a marked one may be marked falsely (the subtractions' borrow); the
// lowest mark is exact, and no mark means none of w's bytes is one.
func strStop(w uint64) uint64 {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (w-ones*0x20)&^w) & high
}

// sameString consumes the JSON string at s.pos (which holds '"') if its
// text is raw followed by the closing quote. raw must be the content of a
// string strSpan aliased (no quote, backslash or control byte; valid
// UTF-8), so the string read is raw, as strSpan would have read it.
func (s *scanner) sameString(raw []byte) bool {
	end := s.pos + 1 + len(raw)
	if end >= len(s.data) || s.data[end] != '"' || string(s.data[s.pos+1:end]) != string(raw) {
		return false
	}
	s.pos = end + 1
	return true
}

// strSlow decodes a string with escapes starting at content offset start.
func (s *scanner) strSlow(start int) ([]byte, error) {
	out := make([]byte, 0, 16)
	i := start
	for i < len(s.data) {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return out, nil
		case c < 0x20:
			s.pos = i
			return nil, s.fail("string", "control character in JSON string")
		case c == '\\':
			var err error
			if out, i, err = s.escape(out, i); err != nil {
				return nil, err
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(s.data[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, s.badUTF8(i)
			}
			out = utf8.AppendRune(out, r)
			i += n
		}
	}
	s.pos = len(s.data)
	return nil, s.syntax("'\"'")
}

// escape decodes the escape sequence at data[i] ('\\'), appending to out.
func (s *scanner) escape(out []byte, i int) ([]byte, int, error) {
	if i+1 >= len(s.data) {
		s.pos = len(s.data)
		return nil, 0, s.syntax("escape")
	}
	switch c := s.data[i+1]; c {
	case '"', '\\', '/':
		return append(out, c), i + 2, nil
	case 'b':
		return append(out, '\b'), i + 2, nil
	case 'f':
		return append(out, '\f'), i + 2, nil
	case 'n':
		return append(out, '\n'), i + 2, nil
	case 'r':
		return append(out, '\r'), i + 2, nil
	case 't':
		return append(out, '\t'), i + 2, nil
	case 'u':
		return s.unicodeEscape(out, i)
	}
	s.pos = i
	return nil, 0, s.fail("escape", "invalid escape in JSON string")
}

func (s *scanner) unicodeEscape(out []byte, i int) ([]byte, int, error) {
	r, ok := hex4(s.data, i+2)
	if !ok {
		s.pos = i
		return nil, 0, s.fail("\\uXXXX", "invalid unicode escape in JSON string")
	}
	i += 6
	if utf16.IsSurrogate(r) {
		if lo, ok := hex4(s.data, i+2); ok && i+1 < len(s.data) && s.data[i] == '\\' && s.data[i+1] == 'u' {
			if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
				return utf8.AppendRune(out, dec), i + 6, nil
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(out, r), i, nil
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// number consumes a JSON number and returns its text and whether it is an
// integer (no fraction, no exponent).
func (s *scanner) number() ([]byte, bool, error) {
	start, i := s.pos, s.pos
	if i < len(s.data) && s.data[i] == '-' {
		i++
	}
	i, ok := s.intPart(i)
	if !ok {
		s.pos = i
		return nil, false, s.syntax("number")
	}
	end, ok := s.fracAndExp(i)
	s.pos = end
	if !ok {
		return nil, false, s.syntax("digit")
	}
	return s.data[start:end], end == i, nil
}

// plainInt consumes a JSON number at s.pos that is an integer of at most
// 18 digits without a leading zero, fraction or exponent, and that fits
// in bits, returning its value; anything else it leaves to number (false,
// s.pos unmoved). It reads the digits once where number and
// parseIntBytes read them twice.
func (s *scanner) plainInt(bits int) (int64, bool) {
	i := s.pos
	neg := i < len(s.data) && s.data[i] == '-'
	if neg {
		i++
	}
	var u uint64
	j := i
	for ; j < len(s.data); j++ {
		d := s.data[j] - '0'
		if d > 9 {
			break
		}
		u = u*10 + uint64(d)
	}
	switch {
	case j == i, j-i > 18, s.data[i] == '0' && j-i > 1:
		return 0, false
	case j < len(s.data) && (s.data[j] == '.' || s.data[j] == 'e' || s.data[j] == 'E'):
		return 0, false
	}
	limit := uint64(1) << (bits - 1)
	if neg && u > limit || !neg && u >= limit {
		return 0, false
	}
	s.pos = j
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// intPart scans 0 or [1-9][0-9]* at i.
func (s *scanner) intPart(i int) (int, bool) {
	switch {
	case i < len(s.data) && s.data[i] == '0':
		return i + 1, true
	case i < len(s.data) && s.data[i] >= '1' && s.data[i] <= '9':
		return s.digits(i), true
	}
	return i, false
}

// fracAndExp scans an optional fraction and exponent at i, returning the
// end (or where a digit was missing) and whether the syntax is valid.
func (s *scanner) fracAndExp(i int) (int, bool) {
	if i < len(s.data) && s.data[i] == '.' {
		j := s.digits(i + 1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(s.data) && (s.data[i] == 'e' || s.data[i] == 'E') {
		i++
		if i < len(s.data) && (s.data[i] == '+' || s.data[i] == '-') {
			i++
		}
		j := s.digits(i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func (s *scanner) digits(i int) int {
	for i < len(s.data) && s.data[i] >= '0' && s.data[i] <= '9' {
		i++
	}
	return i
}

// skip consumes any JSON value, checking its syntax.
func (s *scanner) skip() error {
	switch s.peek() {
	case '{':
		return s.skipContainer('}', true)
	case '[':
		return s.skipContainer(']', false)
	case '"':
		_, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, _, err := s.number()
	return err
}

func (s *scanner) skipContainer(end byte, object bool) error {
	if s.depth++; s.depth > maxJSONDepth {
		return s.fail("", "JSON nested too deeply")
	}
	defer func() { s.depth-- }()
	s.pos++
	if s.peek() == end {
		s.pos++
		return nil
	}
	for {
		if object {
			if err := s.skipKey(); err != nil {
				return err
			}
		}
		if err := s.skip(); err != nil {
			return err
		}
		if done, err := s.next(end); done || err != nil {
			return err
		}
	}
}

func (s *scanner) skipKey() error {
	if s.peek() != '"' {
		return s.syntax("object key")
	}
	if _, err := s.str(); err != nil {
		return err
	}
	return s.expect(':')
}

// next consumes ',' (more elements follow) or end (done).
func (s *scanner) next(end byte) (done bool, err error) {
	switch s.peek() {
	case ',':
		s.pos++
		return false, nil
	case end:
		s.pos++
		return true, nil
	}
	return false, s.syntax("',' or '" + string(end) + "'")
}

// tokenName names the JSON value starting with c for error messages.
func tokenName(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "number"
	}
	return "invalid token"
}

// compactJSON appends raw JSON text without insignificant white space.
func compactJSON(buf, raw []byte) []byte {
	inStr, esc := false, false
	for _, c := range raw {
		switch {
		case inStr:
			buf = append(buf, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			if c == '"' {
				inStr = true
			}
			buf = append(buf, c)
		}
	}
	return buf
}

// badUTF8 is the error of invalid UTF-8 in the string whose content
// starts at start: it points at the first byte that is not UTF-8.
func (s *scanner) badUTF8(start int) *DecodeError {
	i := start
	for i < len(s.data) {
		r, n := utf8.DecodeRune(s.data[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	s.pos = i
	return s.fail("string", "invalid UTF-8 in JSON string")
}
