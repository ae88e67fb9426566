package functions

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

func registerStringPadding(r *Registry) {
	for _, name := range []string{"LPAD", "RPAD"} {
		left := name == "LPAD"
		side := map[bool]string{true: "left", false: "right"}[left]
		r.MustAddScalar(ScalarDef{Name: name, Category: CatString,
			Description: "Pads the input on the " + side + " with padding up to length characters (or bytes), truncating longer input.",
			Overloads: []Overload{
				{Sig: name + "(STRING input, INTEGER length, STRING padding) STRING", Fn: r.capped(name, padSize,
					call3(func(s string, n int32, p string) (any, error) { return padString(s, n, p, left), nil }))},
				{Sig: name + "(BYTES input, INTEGER length, BYTES padding) BYTES", Fn: r.capped(name, padSize,
					call3(func(s []byte, n int32, p []byte) (any, error) { return padBytes(s, n, p, left), nil }))},
			}})
	}
}

// padSize is the size in bytes of LPAD/RPAD's result.
func padSize(args []any) int64 {
	if s, ok := args[0].(string); ok {
		return padStringSize(s, args[1].(int32), args[2].(string))
	}
	return max(int64(args[1].(int32)), 0)
}

// padString is ksqlDB's LPAD/RPAD: NULL for an empty padding or a
// negative length.
func padString(s string, n int32, pad string, left bool) any {
	if pad == "" || n < 0 {
		return nil
	}
	r, p := []rune(s), []rune(pad)
	if int(n) <= len(r) {
		return string(r[:n])
	}
	fill := make([]rune, 0, int(n)-len(r))
	for len(fill) < int(n)-len(r) {
		fill = append(fill, p[:min(len(p), int(n)-len(r)-len(fill))]...)
	}
	if left {
		return string(fill) + s
	}
	return s + string(fill)
}

func padBytes(s []byte, n int32, pad []byte, left bool) any {
	if len(pad) == 0 || n < 0 {
		return nil
	}
	if int(n) <= len(s) {
		return append([]byte{}, s[:n]...)
	}
	fill := make([]byte, 0, int(n)-len(s))
	for len(fill) < int(n)-len(s) {
		fill = append(fill, pad[:min(len(pad), int(n)-len(s)-len(fill))]...)
	}
	if left {
		return append(fill, s...)
	}
	return append(append([]byte{}, s...), fill...)
}

func registerStringMisc(r *Registry) {
	r.MustAddScalar(ScalarDef{Name: "SPLIT", Category: CatString,
		Description: "Splits a string or bytes on a delimiter into an array; an empty delimiter splits into characters.",
		Overloads: []Overload{
			{Sig: "SPLIT(STRING input, STRING delimiter) ARRAY<STRING>", Fn: pure2(splitString)},
			{Sig: "SPLIT(BYTES input, BYTES delimiter) ARRAY<BYTES>", Fn: pure2(splitBytes)},
		}})
	r.MustAddScalar(ScalarDef{Name: "CHR", Category: CatString,
		Description: "Returns the character with the given Unicode code point, given as a number or as a '\\uXXXX' string.",
		Overloads: []Overload{
			{Sig: "CHR(INTEGER code) STRING", Fn: pure(chrCode)},
			{Sig: "CHR(STRING code) STRING", Fn: pure(chrText)},
		}})
	r.MustAddScalar(ScalarDef{Name: "UUID", Category: CatString,
		Description: "Returns a random (version 4) UUID string, or the UUID string of 16 bytes (NULL for any other length).",
		Overloads: []Overload{
			{Sig: "UUID() STRING", Fn: func([]any) (any, error) { return randomUUID(), nil }},
			{Sig: "UUID(BYTES bytes) STRING", Fn: pure(uuidOfBytes)},
		}})
	r.MarkVolatile("UUID")
	r.MustAddScalar(ScalarDef{Name: "ELT", Category: CatString,
		Description: "Returns the n-th (1-based) of the following strings, NULL when out of range.",
		Overloads:   []Overload{{Sig: "ELT(INTEGER n, STRING args...) STRING", NullAware: true, Fn: eltFn}}})
	r.MustAddScalar(ScalarDef{Name: "FIELD", Category: CatString,
		Description: "Returns the 1-based position of str among the following strings, 0 when absent or NULL.",
		Overloads:   []Overload{{Sig: "FIELD(STRING str, STRING args...) INTEGER", NullAware: true, Fn: fieldFn}}})
}

// splitString is ksqlDB's SPLIT: an empty delimiter splits into
// characters; an empty input gives one empty string.
func splitString(s, delim string) []any {
	if s == "" {
		return []any{""}
	}
	var parts []string
	if delim == "" {
		parts = strings.Split(s, "")
	} else {
		parts = strings.Split(s, delim)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

// SplitPart is SPLIT(s, delim)[i] without building the array: the i-th
// part (1-based; negative counts from the end), false when out of range.
// The parts are splitString's: "" is one empty part, and an empty delim
// splits into characters (each invalid UTF-8 byte being one).
func SplitPart(s, delim string, i int64) (string, bool) {
	if s == "" {
		return "", i == 1 || i == -1
	}
	if i < 0 {
		var n int
		if delim == "" {
			n = utf8.RuneCountInString(s)
		} else {
			n = strings.Count(s, delim) + 1
		}
		i += int64(n) + 1
	}
	if i < 1 {
		return "", false
	}
	if delim == "" {
		for ; s != ""; i-- {
			_, size := utf8.DecodeRuneInString(s)
			if i == 1 {
				return s[:size], true
			}
			s = s[size:]
		}
		return "", false
	}
	for ; i > 1; i-- {
		j := strings.Index(s, delim)
		if j < 0 {
			return "", false
		}
		s = s[j+len(delim):]
	}
	if j := strings.Index(s, delim); j >= 0 {
		return s[:j], true
	}
	return s, true
}

func splitBytes(s, delim []byte) []any {
	if len(s) == 0 {
		return []any{[]byte{}}
	}
	var parts [][]byte
	if len(delim) == 0 {
		for i := range s {
			parts = append(parts, s[i:i+1:i+1])
		}
	} else {
		parts = bytes.Split(s, delim)
	}
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}

func chrCode(code int32) any {
	if code < 0 || code > 0x10FFFF {
		return nil
	}
	return string(rune(code))
}

// chrText decodes "\uXXXX" escapes, including surrogate pairs.
func chrText(s string) any {
	var units []uint16
	for len(s) > 0 {
		if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
			return nil
		}
		u, err := strconv.ParseUint(s[2:6], 16, 16)
		if err != nil {
			return nil
		}
		units, s = append(units, uint16(u)), s[6:]
	}
	if len(units) == 0 {
		return nil
	}
	return string(utf16.Decode(units))
}

func randomUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// uuidOfBytes is ksqlDB's UUID(bytes): 16 bytes as a UUID string, NULL
// for any other length.
func uuidOfBytes(b []byte) any {
	if len(b) != 16 {
		return nil
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func eltFn(args []any) (any, error) {
	if args[0] == nil {
		return nil, nil
	}
	n := int(args[0].(int32))
	if n < 1 || n >= len(args) {
		return nil, nil
	}
	return args[n], nil
}

func fieldFn(args []any) (any, error) {
	if args[0] == nil {
		return int32(0), nil
	}
	for i, a := range args[1:] {
		if a != nil && a.(string) == args[0].(string) {
			return int32(i + 1), nil
		}
	}
	return int32(0), nil
}

func registerMask(r *Registry) {
	desc := "Masks characters: upper-case letters become upper (default 'X'), lower-case lower ('x'), digits digit ('n'), others other ('-'); a NULL mask character keeps the original."
	r.MustAddScalar(ScalarDef{Name: "MASK", Category: CatString, Description: desc,
		Overloads: []Overload{
			{Sig: "MASK(STRING input) STRING", Fn: maskFn(maskAll)},
			{Sig: "MASK(STRING input, STRING upper, STRING lower, STRING digit, STRING other) STRING", NullAware: true, Fn: maskFn(maskAll)},
		}})
	for _, m := range []struct {
		name, what string
		span       func(n, k int) (int, int)
	}{
		{"MASK_LEFT", "Masks the first n characters.", func(n, k int) (int, int) { return 0, min(k, n) }},
		{"MASK_RIGHT", "Masks the last n characters.", func(n, k int) (int, int) { return max(0, n-k), n }},
		{"MASK_KEEP_LEFT", "Masks all but the first n characters.", func(n, k int) (int, int) { return min(k, n), n }},
		{"MASK_KEEP_RIGHT", "Masks all but the last n characters.", func(n, k int) (int, int) { return 0, max(0, n-k) }},
	} {
		r.MustAddScalar(ScalarDef{Name: m.name, Category: CatString, Description: m.what + " " + desc,
			Overloads: []Overload{
				{Sig: m.name + "(STRING input, INTEGER numChars) STRING", Fn: maskFn(m.span)},
				{Sig: m.name + "(STRING input, INTEGER numChars, STRING upper, STRING lower, STRING digit, STRING other) STRING", NullAware: true, Fn: maskFn(m.span)},
			}})
	}
}

func maskAll(n, _ int) (int, int) { return 0, n }

// maskFn builds a MASK* implementation: span picks the masked range from
// the input length and the numChars argument (when present).
func maskFn(span func(n, k int) (int, int)) Fn {
	return func(args []any) (any, error) {
		if args[0] == nil {
			return nil, nil
		}
		rest, k := args[1:], 0
		if len(args) == 2 || len(args) == 6 {
			if args[1] == nil {
				return nil, nil
			}
			rest, k = args[2:], int(args[1].(int32))
		}
		if k < 0 {
			return nil, fmt.Errorf("function input must be >= 0")
		}
		chars := maskChars(rest)
		r := []rune(args[0].(string))
		from, to := span(len(r), k)
		for i := from; i < to; i++ {
			r[i] = chars.mask(r[i])
		}
		return string(r), nil
	}
}

// maskSet holds the replacement per character class; -1 keeps the original.
type maskSet struct{ upper, lower, digit, other rune }

func maskChars(args []any) maskSet {
	m := maskSet{'X', 'x', 'n', '-'}
	if len(args) < 4 {
		return m
	}
	pick := func(a any) rune {
		if a == nil || a.(string) == "" {
			return -1
		}
		return []rune(a.(string))[0]
	}
	return maskSet{pick(args[0]), pick(args[1]), pick(args[2]), pick(args[3])}
}

func (m maskSet) mask(r rune) rune {
	var c rune
	switch {
	case unicode.IsUpper(r):
		c = m.upper
	case unicode.IsLower(r):
		c = m.lower
	case unicode.IsDigit(r):
		c = m.digit
	default:
		c = m.other
	}
	if c < 0 {
		return r
	}
	return c
}

// ReplaceSize is the size in bytes of REPLACE(s, old, repl), which its
// result cap checks before the string is built.
func ReplaceSize(s, old, repl string) int64 { return replaceSize(s, old, repl) }

// ReplacedLen is LEN(REPLACE(s, old, repl)), the length in UTF-16 units
// of strings.ReplaceAll(s, old, repl), counted without building the
// string where it can be (q14 counts an extra's c's so, replacing them
// by the empty string): the replaced string is s with each of the k matches of old
// turned into repl, so its length is s's plus k times the difference,
// when old is not empty (an empty one inserts repl at every rune
// boundary) and the three are valid UTF-8 (a match of valid old in valid
// s then starts and ends on rune boundaries, and the pieces between
// count alone as they do joined). Otherwise the string is built and
// measured.
func ReplacedLen(s, old, repl string) int32 {
	if old == "" || !utf8.ValidString(s) || !utf8.ValidString(old) || !utf8.ValidString(repl) {
		return int32(utf16Len(strings.ReplaceAll(s, old, repl)))
	}
	k := strings.Count(s, old)
	if k == 0 {
		return int32(utf16Len(s))
	}
	return int32(utf16Len(s) + k*(utf16Len(repl)-utf16Len(old)))
}
