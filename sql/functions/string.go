package functions

import (
	"bytes"
	"strings"
	"unicode"
)

func registerString(r *Registry) {
	for _, d := range stringDefs(r) {
		r.MustAddScalar(d)
	}
	registerStringPadding(r)
	registerStringMisc(r)
	registerMask(r)
}

func stringDefs(r *Registry) []ScalarDef {
	return []ScalarDef{
		{Name: "CONCAT", Category: CatString, Description: "Concatenates its arguments; NULL arguments are skipped.",
			Overloads: []Overload{
				{Sig: "CONCAT(STRING inputs...) STRING", NullAware: true, Fn: r.capped("CONCAT", concatSize, concatStrings)},
				{Sig: "CONCAT(BYTES inputs...) BYTES", NullAware: true, Fn: r.capped("CONCAT", concatSize, concatBytes)},
			}},
		{Name: "CONCAT_WS", Category: CatString, Description: "Concatenates its arguments with a separator; NULL arguments are skipped, a NULL separator gives NULL.",
			Overloads: []Overload{
				{Sig: "CONCAT_WS(STRING separator, STRING inputs...) STRING", NullAware: true, Fn: r.capped("CONCAT_WS", concatWSSize, concatWSStrings)},
				{Sig: "CONCAT_WS(BYTES separator, BYTES inputs...) BYTES", NullAware: true, Fn: r.capped("CONCAT_WS", concatWSSize, concatWSBytes)},
			}},
		{Name: "UCASE", Category: CatString, Description: "Converts a string to upper case.",
			Overloads: []Overload{{Sig: "UCASE(STRING input) STRING", Fn: pure(javaUpper)}}},
		{Name: "LCASE", Category: CatString, Description: "Converts a string to lower case.",
			Overloads: []Overload{{Sig: "LCASE(STRING input) STRING", Fn: pure(strings.ToLower)}}},
		{Name: "LEN", Category: CatString, Description: "Returns the length of a string in characters, or of bytes in bytes.",
			Overloads: []Overload{
				{Sig: "LEN(STRING input) INTEGER", Fn: pure(func(s string) int32 { return int32(utf16Len(s)) })},
				{Sig: "LEN(BYTES input) INTEGER", Fn: pure(func(b []byte) int32 { return int32(len(b)) })},
			}},
		{Name: "SUBSTRING", Category: CatString, Description: "Returns the part of a string or bytes from the 1-based position pos (negative counts from the end), up to len characters.",
			Overloads: []Overload{
				{Sig: "SUBSTRING(STRING str, INTEGER pos) STRING", Fn: pure2(substring2)},
				{Sig: "SUBSTRING(STRING str, INTEGER pos, INTEGER len) STRING", Fn: pure3(substring3)},
				{Sig: "SUBSTRING(BYTES str, INTEGER pos) BYTES", Fn: pure2(subbytes2)},
				{Sig: "SUBSTRING(BYTES str, INTEGER pos, INTEGER len) BYTES", Fn: pure3(subbytes3)},
			}},
		{Name: "TRIM", Category: CatString, Description: "Removes leading and trailing whitespace.",
			Overloads: []Overload{{Sig: "TRIM(STRING input) STRING", Fn: pure(func(s string) string { return strings.TrimFunc(s, javaSpace) })}}},
		{Name: "LTRIM", Category: CatString, Description: "Removes leading whitespace.",
			Overloads: []Overload{{Sig: "LTRIM(STRING input) STRING", Fn: pure(func(s string) string { return strings.TrimLeftFunc(s, javaSpace) })}}},
		{Name: "RTRIM", Category: CatString, Description: "Removes trailing whitespace.",
			Overloads: []Overload{{Sig: "RTRIM(STRING input) STRING", Fn: pure(func(s string) string { return strings.TrimRightFunc(s, javaSpace) })}}},
		{Name: "REPLACE", Category: CatString, Description: "Replaces every occurrence of a substring with another string.",
			Overloads: []Overload{{Sig: "REPLACE(STRING str, STRING substring, STRING replacement) STRING", Fn: r.capped("REPLACE", func(a []any) int64 { return replaceSize(a[0].(string), a[1].(string), a[2].(string)) }, pure3(strings.ReplaceAll))}}},
		{Name: "INSTR", Category: CatString, Description: "Returns the 1-based position of the occurrence-th match of substring, searching from position (backwards when negative); 0 when not found.",
			Overloads: []Overload{
				{Sig: "INSTR(STRING str, STRING substring) INTEGER", Fn: pure2(func(s, sub string) int32 { return instr(s, sub, 1, 1) })},
				{Sig: "INSTR(STRING str, STRING substring, INTEGER position) INTEGER", Fn: pure3(func(s, sub string, p int32) int32 { return instr(s, sub, p, 1) })},
				{Sig: "INSTR(STRING str, STRING substring, INTEGER position, INTEGER occurrence) INTEGER", Fn: func(a []any) (any, error) {
					return instr(a[0].(string), a[1].(string), a[2].(int32), a[3].(int32)), nil
				}},
			}},
		{Name: "INITCAP", Category: CatString, Description: "Capitalizes the first letter of each word and lower-cases the rest.",
			Overloads: []Overload{{Sig: "INITCAP(STRING input) STRING", Fn: pure(initcap)}}},
	}
}

// javaSpace is Java's String.trim() notion of whitespace.
func javaSpace(r rune) bool { return r <= ' ' }

// utf16Len is Java's String.length(): UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

func concatStrings(args []any) (any, error) {
	var b strings.Builder
	for _, a := range args {
		if a != nil {
			b.WriteString(a.(string))
		}
	}
	return b.String(), nil
}

func concatBytes(args []any) (any, error) {
	out := []byte{}
	for _, a := range args {
		if a != nil {
			out = append(out, a.([]byte)...)
		}
	}
	return out, nil
}

func concatWSStrings(args []any) (any, error) {
	if args[0] == nil {
		return nil, nil
	}
	parts := make([]string, 0, len(args)-1)
	for _, a := range args[1:] {
		if a != nil {
			parts = append(parts, a.(string))
		}
	}
	return strings.Join(parts, args[0].(string)), nil
}

func concatWSBytes(args []any) (any, error) {
	if args[0] == nil {
		return nil, nil
	}
	parts := make([][]byte, 0, len(args)-1)
	for _, a := range args[1:] {
		if a != nil {
			parts = append(parts, a.([]byte))
		}
	}
	return append([]byte{}, bytes.Join(parts, args[0].([]byte))...), nil
}

// substringBounds returns ksqlDB's [start, end) for a 1-based pos
// (negative from the end) and an optional length over n units.
func substringBounds(n int, pos int32, length int64) (int, int) {
	var start int
	if pos >= 0 {
		start = max(0, min(int(pos)-1, n))
	} else {
		start = max(0, n+int(pos))
	}
	end := max(int64(start), min(int64(start)+length, int64(n)))
	return start, int(end)
}

func substring2(s string, pos int32) string { return substringN(s, pos, -1) }

func substring3(s string, pos, length int32) string {
	if length < 0 {
		length = 0
	}
	return substringN(s, pos, int64(length))
}

// substringN slices s by characters; length < 0 means "to the end". ASCII
// strings are sliced without decoding.
func substringN(s string, pos int32, length int64) string {
	if isASCII(s) {
		if length < 0 {
			length = int64(len(s))
		}
		start, end := substringBounds(len(s), pos, length)
		return s[start:end]
	}
	r := []rune(s)
	if length < 0 {
		length = int64(len(r))
	}
	start, end := substringBounds(len(r), pos, length)
	return string(r[start:end])
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func subbytes2(b []byte, pos int32) []byte {
	start, end := substringBounds(len(b), pos, int64(len(b)))
	return b[start:end:end]
}

func subbytes3(b []byte, pos, length int32) []byte {
	start, end := substringBounds(len(b), pos, int64(length))
	return b[start:end:end]
}

// instr is ksqlDB's INSTR over characters: 1-based result, 0 when absent.
func instr(s, sub string, position, occurrence int32) int32 {
	r, pat := []rune(s), []rune(sub)
	n := len(r)
	if position == 0 || occurrence <= 0 {
		return 0
	}
	if position > 0 {
		idx := int(position) - 1
		for k := int32(0); k < occurrence; k++ {
			if idx = indexRunes(r, pat, idx); idx < 0 {
				return 0
			}
			if k+1 < occurrence {
				idx++
			}
		}
		return int32(idx + 1)
	}
	idx := n + int(position)
	for k := int32(0); k < occurrence; k++ {
		if idx = lastIndexRunes(r, pat, idx); idx < 0 {
			return 0
		}
		if k+1 < occurrence {
			idx--
		}
	}
	return int32(idx + 1)
}

func runesAt(r, pat []rune, i int) bool {
	if i < 0 || i+len(pat) > len(r) {
		return false
	}
	for j := range pat {
		if r[i+j] != pat[j] {
			return false
		}
	}
	return true
}

func indexRunes(r, pat []rune, from int) int {
	for i := max(from, 0); i+len(pat) <= len(r); i++ {
		if runesAt(r, pat, i) {
			return i
		}
	}
	return -1
}

func lastIndexRunes(r, pat []rune, from int) int {
	for i := min(from, len(r)-len(pat)); i >= 0; i-- {
		if runesAt(r, pat, i) {
			return i
		}
	}
	return -1
}

func initcap(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	startOfWord := true
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			startOfWord = true
			b.WriteRune(r)
		case startOfWord:
			startOfWord = false
			b.WriteRune(unicode.ToUpper(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// javaUpper is Java's String.toUpperCase: Go's mapping plus the special
// casings that expand to several letters (ß → SS, ligatures).
func javaUpper(s string) string {
	u := strings.ToUpper(s)
	if isASCII(u) {
		return u
	}
	return strings.NewReplacer("ß", "SS", "ﬀ", "FF", "ﬁ", "FI", "ﬂ", "FL", "ﬃ", "FFI", "ﬄ", "FFL", "ﬅ", "ST", "ﬆ", "ST").Replace(u)
}
