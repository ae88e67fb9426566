package java

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text/bytes codecs with the behaviour of the Java libraries ksqlDB uses:
// commons-codec for ENCODE, Guava and java.util.Base64's MIME codec for
// TO_BYTES/FROM_BYTES.

// Codec converts between a string in some encoding and bytes.
type Codec struct {
	Decode func(string) ([]byte, error)
	Encode func([]byte) string
}

// BytesCodec finds a TO_BYTES/FROM_BYTES encoding by
// case-insensitive name.
func BytesCodec(name string) (Codec, error) {
	switch strings.ToLower(name) {
	case "hex":
		return Codec{Decode: decodeHexStrict, Encode: func(b []byte) string { return strings.ToUpper(hex.EncodeToString(b)) }}, nil
	case "utf8":
		return Codec{Decode: utf8Bytes, Encode: DecodeUTF8}, nil
	case "ascii":
		return Codec{Decode: asciiBytes, Encode: asciiString}, nil
	case "base64":
		return Codec{Decode: decodeMimeBase64, Encode: MimeBase64}, nil
	}
	return Codec{}, fmt.Errorf("unknown encoding type '%s'. Supported formats are 'hex', 'utf8', 'ascii', and 'base64'", name)
}

func decodeHexStrict(s string) ([]byte, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("invalid hex string %q: %w", s, err)
	}
	return b, nil
}

func utf8Bytes(s string) ([]byte, error) { return []byte(s), nil }

// asciiBytes encodes s as US-ASCII, each non-ASCII character becoming '?'.
func asciiBytes(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r >= 0x80 {
			r = '?'
		}
		out = append(out, byte(r))
	}
	return out, nil
}

// asciiString decodes US-ASCII: bytes above 0x7F become U+FFFD.
func asciiString(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x80 {
			sb.WriteRune(utf8.RuneError)
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// MimeBase64 is java.util.Base64's MIME encoder: padded standard base64
// in lines of 76 characters separated by CRLF.
func MimeBase64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	if len(s) <= 76 {
		return s
	}
	var sb strings.Builder
	for len(s) > 76 {
		sb.WriteString(s[:76])
		sb.WriteString("\r\n")
		s = s[76:]
	}
	sb.WriteString(s)
	return sb.String()
}

// decodeMimeBase64 is java.util.Base64's MIME decoder: characters outside
// the base64 alphabet are ignored; padding is optional but must be
// complete when present, and no base64 character may follow it.
func decodeMimeBase64(s string) ([]byte, error) {
	var out []byte
	bits, shift, i := 0, 18, 0
	for i < len(s) {
		c := s[i]
		i++
		if c == '=' {
			if shift == 18 || shift == 6 && (i == len(s) || s[i] != '=') {
				return nil, errors.New("invalid base64: wrong 4-byte ending unit")
			}
			if shift == 6 {
				i++
			}
			break
		}
		v := strings.IndexByte(stdBase64Alphabet, c)
		if v < 0 {
			continue
		}
		bits |= v << shift
		if shift -= 6; shift < 0 {
			out = append(out, byte(bits>>16), byte(bits>>8), byte(bits))
			bits, shift = 0, 18
		}
	}
	switch shift {
	case 12:
		return nil, errors.New("invalid base64: the last unit does not have enough valid bits")
	case 6:
		out = append(out, byte(bits>>16))
	case 0:
		out = append(out, byte(bits>>16), byte(bits>>8))
	}
	for ; i < len(s); i++ {
		if strings.IndexByte(stdBase64Alphabet, s[i]) >= 0 {
			return nil, fmt.Errorf("invalid base64: incorrect ending byte at %d", i)
		}
	}
	return out, nil
}

const stdBase64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// decodeLenientBase64 is commons-codec's Base64.decodeBase64: both the
// standard and the URL-safe alphabets, other characters ignored, decoding
// stops at padding and a dangling character is dropped.
func decodeLenientBase64(s string) []byte {
	clean := make([]byte, 0, len(s))
	for i := 0; i < len(s) && s[i] != '='; i++ {
		switch c := s[i]; {
		case c == '-':
			clean = append(clean, '+')
		case c == '_':
			clean = append(clean, '/')
		case strings.IndexByte(stdBase64Alphabet, c) >= 0:
			clean = append(clean, c)
		}
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	b, _ := base64.RawStdEncoding.DecodeString(string(clean))
	return b
}

// DecodeUTF8 decodes b as UTF-8 the way Java's decoder does: each
// maximal ill-formed subsequence becomes one U+FFFD.
func DecodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			size = invalidSpan(b)
		}
		sb.WriteRune(r)
		b = b[size:]
	}
	return sb.String()
}

// invalidSpan is the length of the ill-formed sequence at the start of b:
// a lead byte followed by the continuation bytes that were still valid.
func invalidSpan(b []byte) int {
	if len(b) >= 3 && b[0] == 0xED && b[1] >= 0xA0 && b[1] <= 0xBF && b[2] >= 0x80 && b[2] <= 0xBF {
		return 3 // an encoded surrogate is one malformed unit for Java
	}
	n, lo, hi := utf8SeqShape(b[0])
	if n == 1 || len(b) < 2 || b[1] < lo || b[1] > hi {
		return 1
	}
	k := 2
	for k < n && k < len(b) && b[k] >= 0x80 && b[k] <= 0xBF {
		k++
	}
	return k
}

// utf8SeqShape gives the sequence length a lead byte announces and the
// valid range of the byte after it (n is 1 for a byte that cannot lead).
func utf8SeqShape(lead byte) (n int, lo, hi byte) {
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		return 2, 0x80, 0xBF
	case lead == 0xE0:
		return 3, 0xA0, 0xBF
	case lead == 0xED:
		return 3, 0x80, 0x9F
	case lead >= 0xE1 && lead <= 0xEF:
		return 3, 0x80, 0xBF
	case lead == 0xF0:
		return 4, 0x90, 0xBF
	case lead >= 0xF1 && lead <= 0xF3:
		return 4, 0x80, 0xBF
	case lead == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 1, 0, 0
}

// EncodeCodec returns ENCODE's decoder and encoder for an encoding name.
func EncodeCodec(name string) (Codec, bool) {
	switch name {
	case "hex":
		return Codec{Decode: func(s string) ([]byte, error) { return decodeHexStrict(hexStrip(s)) },
			Encode: hex.EncodeToString}, true
	case "utf8":
		return Codec{Decode: utf8Bytes, Encode: DecodeUTF8}, true
	case "ascii":
		return Codec{Decode: asciiBytes, Encode: asciiString}, true
	case "base64":
		return Codec{Decode: func(s string) ([]byte, error) { return decodeLenientBase64(s), nil },
			Encode: base64.StdEncoding.EncodeToString}, true
	}
	return Codec{}, false
}

// hexStrip removes a "0x" prefix (padding an odd number of digits with a
// leading 0) or an X'…' wrapper.
func hexStrip(s string) string {
	switch {
	case strings.HasPrefix(s, "0x"):
		if len(s)%2 != 0 {
			return "0" + s[2:]
		}
		return s[2:]
	case len(s) >= 3 && (s[0] == 'x' || s[0] == 'X') && s[1] == '\'' && s[len(s)-1] == '\'':
		return s[2 : len(s)-1]
	}
	return s
}
