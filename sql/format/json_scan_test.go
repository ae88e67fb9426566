package format

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
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
