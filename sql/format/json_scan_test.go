package format

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/types"
)

// strSpanBytewise is strSpan as it was before it read eight bytes at a
// time (e3ccd3b), the reference of TestStrSpanMatchesBytewise.
func (s *scanner) strSpanBytewise() ([]byte, int, error) {
	start := s.pos + 1
	ascii := true
	for i := start; i < len(s.data); i++ {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			raw := s.data[start:i]
			if !ascii && !utf8.Valid(raw) {
				return nil, -1, s.badUTF8(start)
			}
			return raw, start, nil
		case c == '\\':
			b, err := s.strSlow(start)
			return b, -1, err
		case c < 0x20:
			s.pos = i
			return nil, -1, s.fail("string", "control character in JSON string")
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	s.pos = len(s.data)
	return nil, -1, s.syntax("'\"'")
}

// spanCase is a string's text after its opening quote: n plain bytes
// with the bytes of marks at two places (or one).
func spanCases() []string {
	marks := []string{"\"", "\\", "\\\"", "\\u00e9", "\x00", "\x01", "\x1f", " ", "\x7f", "\x80", "é", "\xff", "\xc3", "€", "!", "#", "[", "]"}
	var out []string
	for n := range 26 {
		plain := strings.Repeat("a", n)
		out = append(out, plain, plain+`"`)
		for _, m := range marks {
			for at := range n + 1 {
				one := plain[:at] + m + plain[at:]
				out = append(out, one, one+`"`, one+`"x`)
				for _, m2 := range []string{"\"", "\\n", "\x02", "\xfe", "é"} {
					for at2 := at; at2 <= n; at2 += 3 {
						out = append(out, plain[:at]+m+plain[at:at2]+m2+plain[at2:]+`"`)
					}
				}
			}
		}
	}
	return out
}

// TestStrSpanMatchesBytewise: strSpan reads every string of spanCases,
// at every offset into the record, as the byte-at-a-time scan did: the
// same content, alias, error and position.
func TestStrSpanMatchesBytewise(t *testing.T) {
	n := 0
	for _, c := range spanCases() {
		for _, pad := range []int{0, 5} { // the scan starts at the content, wherever it is
			data := []byte(strings.Repeat(" ", pad) + `"` + c)
			a, b := scanner{data: data, pos: pad}, scanner{data: data, pos: pad}
			gb, gat, gerr := a.strSpan()
			wb, wat, werr := b.strSpanBytewise()
			got := fmt.Sprintf("%q %d %v %d", gb, gat, gerr, a.pos)
			if want := fmt.Sprintf("%q %d %v %d", wb, wat, werr, b.pos); got != want {
				t.Fatalf("string %q at %d: got %s, want %s", c, pad, got, want)
			}
			n++
		}
	}
	t.Logf("%d strings", n)
}

// FuzzStrSpan: strSpan and the byte-at-a-time scan agree on any text.
func FuzzStrSpan(f *testing.F) {
	for _, s := range []string{`abc"`, `a\"b"`, "abcdefgh\x01", "é\xff\"", `abcdefghijklmnop`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		data := append([]byte{'"'}, text...)
		a, b := scanner{data: data}, scanner{data: data}
		gb, gat, gerr := a.strSpan()
		wb, wat, werr := b.strSpanBytewise()
		got := fmt.Sprintf("%q %d %v %d", gb, gat, gerr, a.pos)
		if want := fmt.Sprintf("%q %d %v %d", wb, wat, werr, b.pos); got != want {
			t.Fatalf("%q: got %s, want %s", text, got, want)
		}
	})
}

// numberCases are JSON numbers at and around the edges plainInt draws:
// 32- and 64-bit limits, 18 to 20 digits, leading zeros, fractions,
// exponents, signs alone and what may follow a number.
func numberCases() []string {
	var out []string
	for _, n := range []string{
		"0", "-0", "00", "-00", "01", "-01", "7", "-7", "-", "--1", "-x",
		"2147483647", "2147483648", "-2147483648", "-2147483649",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"99999999999999999", "999999999999999999", "9999999999999999999", "99999999999999999999",
		"-999999999999999999", "100000000000000000", "1000000000000000000", "0.5", "1.", "1.0", "-1.5",
		"1e3", "1E3", "1e", "1e+", "1e-2", "12.5e1", "2147483647.9", "1e400", "0e0",
	} {
		for _, after := range []string{"", ",", "}", " ", "x", ".", "e", "\x00"} {
			out = append(out, n+after)
		}
	}
	return out
}

// TestPlainIntMatchesNumber: a BIGINT and an INT read every number of
// numberCases as number and numberToInt read them before plainInt: the
// same value, error and position.
func TestPlainIntMatchesNumber(t *testing.T) {
	for _, node := range []*jsonNode{newJSONNode(types.BigintType), newJSONNode(types.IntegerType)} {
		bits := 64
		if node.t.Kind == types.KindInteger {
			bits = 32
		}
		for _, c := range numberCases() {
			data := []byte(c)
			if len(data) == 0 || data[0] != '-' && !isDigit(data[0]) {
				continue // integer's mismatch, before any number
			}
			a, b := scanner{data: data}, scanner{data: data}
			gv, gerr := node.integer(&a, a.peek(), bits)
			var wv int64
			text, isInt, werr := b.number()
			if werr == nil {
				wv, werr = node.numberToInt(&b, 0, text, isInt, bits)
			}
			got, want := fmt.Sprintf("%d %v %d", gv, gerr, a.pos), fmt.Sprintf("%d %v %d", wv, werr, b.pos)
			if got != want {
				t.Errorf("%s %q: got %s, want %s", node.t, c, got, want)
			}
		}
	}
}
