package format

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestWindowedKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w       types.Window // time windows decode with End 0
		session bool
		want    string // hex of the encoded key after the inner bytes
	}{
		{"time", types.Window{Start: 1000}, false, "00000000000003e8"},
		{"session", types.Window{Start: 1000, End: 2000}, true, "00000000000007d0" + "00000000000003e8"},
		{"negative", types.Window{Start: -1}, false, "ffffffffffffffff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := []byte("key")
			enc := EncodeWindowedKey(inner, tc.w, tc.session)
			if got := hex.EncodeToString(enc[len(inner):]); got != tc.want {
				t.Fatalf("window bytes = %s, want %s", got, tc.want)
			}
			gotInner, w, err := DecodeWindowedKey(enc, tc.session)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(gotInner, inner) || w != tc.w {
				t.Fatalf("decoded %q %+v, want %q %+v", gotInner, w, inner, tc.w)
			}
		})
	}
}

func TestWindowedKeyTooShort(t *testing.T) {
	_, _, err := DecodeWindowedKey(make([]byte, 15), true)
	if err == nil {
		t.Fatal("want an error for a 15-byte session key")
	}
	if _, _, err := DecodeWindowedKey(make([]byte, 8), false); err != nil {
		t.Fatalf("an empty inner key is valid: %v", err)
	}
}
