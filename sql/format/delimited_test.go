package format

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestDelimited(t *testing.T) { runCodecTest(t, "testdata/delimited") }

func delimitedFuzzColumns() []types.Column {
	return []types.Column{
		{Name: "S", Type: types.StringType},
		{Name: "I", Type: types.IntegerType},
		{Name: "D", Type: types.DoubleType},
		{Name: "S2", Type: types.StringType},
	}
}

// FuzzDelimitedDecode checks that no input panics the decoder and that
// what decodes survives an encode/decode round trip (quoting included),
// with several delimiters.
func FuzzDelimitedDecode(f *testing.F) {
	for i, s := range []string{`a,1,2.5,b`, `"-1",,,"x""y"`, `" a ",2,1e3,"multi` + "\n" + `line"`, `,,,`, `"",,,""`} {
		f.Add([]byte(s), uint8(i))
	}
	delims := []rune{',', '|', '\t', '§'}
	codecs := make([]Codec, len(delims))
	for i, delim := range delims {
		c, err := NewValueCodec(Spec{Name: Delimited, Delimiter: delim}, delimitedFuzzColumns())
		if err != nil {
			f.Fatal(err)
		}
		codecs[i] = c
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		c := codecs[int(which)%len(codecs)]
		dst := make([]any, 4)
		if c.Decode(data, dst) != nil {
			return
		}
		out, err := c.Encode(nil, dst)
		if err != nil {
			t.Fatalf("encode %v: %v", dst, err)
		}
		again := make([]any, 4)
		if err := c.Decode(out, again); err != nil {
			t.Fatalf("re-decode %q: %v", out, err)
		}
		if a, b := describeRow(delimitedFuzzColumns(), dst), describeRow(delimitedFuzzColumns(), again); a != b {
			t.Fatalf("round trip through %q changed\n%s to\n%s", out, a, b)
		}
	})
}

func BenchmarkDelimitedDecode(b *testing.B) {
	c, err := NewValueCodec(Spec{Name: Delimited}, pageViewColumns())
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(`user_4711,/product/7,1700000000123,"eu,west"`)
	dst := make([]any, 4)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Decode(data, dst); err != nil {
			b.Fatal(err)
		}
	}
}
