package java

import (
	"encoding/hex"
	"fmt"
	"testing"
)

// Expected values come from OpenJDK 17 (new String(bytes, UTF_8) and
// Base64.getMimeDecoder()).
func TestToValidUTF8LikeJava(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"e282", "fffd"}, {"e282ac41", "20ac 41"}, {"f09f98", "fffd"}, {"c0af", "fffd fffd"},
		{"eda080", "fffd"}, {"ff41", "fffd 41"}, {"f4908080", "fffd fffd fffd fffd"}, {"e0a0", "fffd"},
		{"e080", "fffd fffd"}, {"41c3", "41 fffd"}, {"f0", "fffd"}, {"c328", "fffd 28"},
	} {
		b, _ := hex.DecodeString(tc.in)
		got := ""
		for _, r := range DecodeUTF8(b) {
			if got != "" {
				got += " "
			}
			got += fmt.Sprintf("%x", r)
		}
		if got != tc.want {
			t.Errorf("DecodeUTF8(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDecodeMimeBase64LikeJava(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"IQ", "21"}, {"I", "ERR"}, {"IQ=", "ERR"}, {"IQ==x", "ERR"}, {"I Q = =", "ERR"}, {"IQ==", "21"},
		{"Iw==Iw==", "ERR"}, {"!!IQ==", "21"}, {"SGVsbG8gV29ybGQ", "48656c6c6f20576f726c64"},
		{"SGVsbG8=V29y", "ERR"}, {"", ""}, {"=", "ERR"}, {"IQ==\r\n", "21"},
	} {
		b, err := decodeMimeBase64(tc.in)
		got := hex.EncodeToString(b)
		if err != nil {
			got = "ERR"
		}
		if got != tc.want {
			t.Errorf("decodeMimeBase64(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestMimeBase64Lines(t *testing.T) {
	b := make([]byte, 120)
	s := MimeBase64(b)
	if len(s) != 160+4 || s[76:78] != "\r\n" || s[154:156] != "\r\n" {
		t.Errorf("MimeBase64 of 120 bytes = %q", s)
	}
	back, err := decodeMimeBase64(s)
	if err != nil || len(back) != 120 {
		t.Errorf("round trip: %d bytes, %v", len(back), err)
	}
}

func TestAsciiBytes(t *testing.T) {
	b, _ := asciiBytes("a😀é")
	if got := hex.EncodeToString(b); got != "613f3f" {
		t.Errorf("asciiBytes = %s, want 613f3f", got)
	}
}
