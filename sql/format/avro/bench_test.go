package avro

import (
	"runtime"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
	twmb "github.com/twmb/avro"
)

// bidCols is a Nexmark Bid as ksqlDB registers it: 7 nullable fields,
// one a timestamp-millis.
var bidCols = []string{
	"AUCTION BIGINT", "BIDDER BIGINT", "PRICE BIGINT", "CHANNEL STRING",
	"URL STRING", "DATETIME TIMESTAMP", "EXTRA STRING",
}

var bidRow = []any{
	int64(1007), int64(2001), int64(94562), "channel-4032",
	"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576",
	types.Timestamp(1_700_000_000_123), "extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq",
}

type bench struct {
	text    string
	dec     Decoder
	enc     Encoder
	payload []byte
}

func newBench(b *testing.B) *bench {
	cols := columns(&testing.T{}, bidCols)
	text, err := Schema(cols, Options{})
	if err != nil {
		b.Fatal(err)
	}
	dec, err := NewDecoder(text, nil, cols, Options{})
	if err != nil {
		b.Fatal(err)
	}
	enc, err := NewEncoder(text, nil, cols, Options{})
	if err != nil {
		b.Fatal(err)
	}
	payload, err := enc.Encode(nil, bidRow)
	if err != nil {
		b.Fatal(err)
	}
	return &bench{text: text, dec: dec, enc: enc, payload: payload}
}

// BenchmarkAvroDecode is our compiled decoder, payload → row slots.
func BenchmarkAvroDecode(b *testing.B) {
	bn := newBench(b)
	dst := make([]any, len(bidCols))
	b.SetBytes(int64(len(bn.payload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := bn.dec.Decode(bn.payload, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAvroEncode is our compiled encoder, row → payload.
func BenchmarkAvroEncode(b *testing.B) {
	bn := newBench(b)
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(bn.payload)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = bn.enc.Encode(buf[:0], bidRow); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAvroDecodeHambaGeneric decodes the same bytes with hamba's
// generic codec into a map.
func BenchmarkAvroDecodeHambaGeneric(b *testing.B) {
	bn := newBench(b)
	s := mustParse(bn.text)
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := hamba.Unmarshal(s, bn.payload, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAvroDecodeTwmbGeneric decodes the same bytes with
// twmb/avro into a generic value.
func BenchmarkAvroDecodeTwmbGeneric(b *testing.B) {
	bn := newBench(b)
	s := twmb.MustParse(bn.text)
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if _, err := s.Decode(bn.payload, &v); err != nil {
			b.Fatal(err)
		}
	}
}

type twmbBid struct {
	Auction  *int64     `avro:"AUCTION"`
	Bidder   *int64     `avro:"BIDDER"`
	Price    *int64     `avro:"PRICE"`
	Channel  *string    `avro:"CHANNEL"`
	URL      *string    `avro:"URL"`
	DateTime *time.Time `avro:"DATETIME"`
	Extra    *string    `avro:"EXTRA"`
}

// BenchmarkAvroDecodeTwmbStruct decodes the same bytes with twmb/avro
// into a Go struct, as a hand-written franz-go consumer loop would.
func BenchmarkAvroDecodeTwmbStruct(b *testing.B) {
	bn := newBench(b)
	s := twmb.MustParse(bn.text)
	b.ReportAllocs()
	for b.Loop() {
		var v twmbBid
		if _, err := s.Decode(bn.payload, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAvroEncodeTwmbStruct encodes the same record with twmb/avro
// from a Go struct.
func BenchmarkAvroEncodeTwmbStruct(b *testing.B) {
	bn := newBench(b)
	s := twmb.MustParse(bn.text)
	var v twmbBid
	if _, err := s.Decode(bn.payload, &v); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = s.AppendEncode(buf[:0], &v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeAllocations: a Nexmark bid (four 8-byte values, three
// strings) decodes in two allocations — one frame for its boxes of both
// kinds, and the slab its strings share; the reader is the decoder's,
// reused — and its values survive the next record's decode and a
// collection.
func TestDecodeAllocations(t *testing.T) {
	bn := newBench(&testing.B{})
	first := make([]any, len(bidCols))
	if err := bn.dec.Decode(bn.payload, first); err != nil {
		t.Fatal(err)
	}
	dst := make([]any, len(bidCols))
	allocs := testing.AllocsPerRun(100, func() {
		if err := bn.dec.Decode(bn.payload, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("a bid decodes in %.0f allocations, want 2", allocs)
	}
	runtime.GC()
	for i, want := range bidRow {
		if first[i] != want || dst[i] != want {
			t.Errorf("column %s: %#v and %#v, want %#v", bidCols[i], first[i], dst[i], want)
		}
	}
}

// TestSmallCountAllocations: an aggregate's accumulators (a COUNT of 3)
// decode without an allocation — a BIGINT in [0, 256) boxes in the Go
// runtime's static table, not in the arena — and larger or negative ones
// in one, the arena's chunk.
func TestSmallCountAllocations(t *testing.T) {
	cols := columns(t, []string{"KSQL_AGG_COUNT BIGINT"})
	text, err := Schema(cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(text, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(text, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]any, 1)
	for _, n := range []int64{3, 255, 256, -1} {
		payload, err := enc.Encode(nil, []any{n})
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(100, func() {
			if err := dec.Decode(payload, dst); err != nil {
				t.Fatal(err)
			}
		})
		if dst[0] != n {
			t.Errorf("%d decoded as %#v", n, dst[0])
		}
		want := 1.0
		if n >= 0 && n < 256 {
			want = 0
		}
		if allocs > want {
			t.Errorf("a COUNT of %d decodes in %.0f allocations, want %.0f", n, allocs, want)
		}
	}
}

// BenchmarkAvroDecodeTwoColumns reads only AUCTION and PRICE of the bid
// (Options.Read): the other fields are read past.
func BenchmarkAvroDecodeTwoColumns(b *testing.B) {
	bn := newBench(b)
	dec, err := NewDecoder(bn.text, nil, columns(&testing.T{}, bidCols), Options{Read: []bool{true, false, true, false, false, false, false}})
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]any, len(bidCols))
	b.SetBytes(int64(len(bn.payload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(bn.payload, dst); err != nil {
			b.Fatal(err)
		}
	}
}
