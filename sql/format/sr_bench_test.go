package format

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// srBenchCodec is a registry codec of the page-view value columns over
// franz-go's srfake, and one encoded record.
func srBenchCodec(b *testing.B, f string) (Codec, []byte) {
	reg, _ := newFakeRegistry(b)
	cols := []types.Column{{Name: "PAGE", Type: types.StringType}, {Name: "MS", Type: types.BigintType}, {Name: "AGENT", Type: types.StringType}}
	c, err := NewValueCodec(Spec{Name: f, Registry: reg, Subject: "pv-value"}, cols)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := c.Encode(nil, []any{"/product/7", int64(1700000000123), "Mozilla/5.0 (X11; Linux)"})
	if err != nil {
		b.Fatal(err)
	}
	return c, rec
}

func benchmarkSRDecode(b *testing.B, f string) {
	c, rec := srBenchCodec(b, f)
	dst := make([]any, 3)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Decode(rec, dst); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkSREncode(b *testing.B, f string) {
	c, _ := srBenchCodec(b, f)
	vals := []any{"/product/7", int64(1700000000123), "Mozilla/5.0 (X11; Linux)"}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = c.Encode(buf[:0], vals); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSRDecodeAvro(b *testing.B)     { benchmarkSRDecode(b, Avro) }
func BenchmarkSRDecodeProtobuf(b *testing.B) { benchmarkSRDecode(b, Protobuf) }
func BenchmarkSRDecodeJSONSR(b *testing.B)   { benchmarkSRDecode(b, JSONSR) }
func BenchmarkSREncodeAvro(b *testing.B)     { benchmarkSREncode(b, Avro) }
func BenchmarkSREncodeProtobuf(b *testing.B) { benchmarkSREncode(b, Protobuf) }
func BenchmarkSREncodeJSONSR(b *testing.B)   { benchmarkSREncode(b, JSONSR) }
