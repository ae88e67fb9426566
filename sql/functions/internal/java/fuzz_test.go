package java

import "testing"

// The decoders of user-supplied text must never panic.

func FuzzDecodeBase64(f *testing.F) {
	f.Add("IQ==\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		decodeMimeBase64(s)
		decodeLenientBase64(s)
		DecodeUTF8([]byte(s))
	})
}
