package format

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// encodeColumnsGeneric is Encode as it was before the codec chose an
// encoder per column: appendJSON for every value.
func encodeColumnsGeneric(buf []byte, cols []types.Column, vals []any) ([]byte, error) {
	buf = append(buf, '{')
	for i, col := range cols {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(appendJSONString(buf, col.Name), ':')
		var err error
		if buf, err = appendJSON(buf, vals[i], col.Type, topicStyle); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}

// encodeTestColumns has a column of every type, DECIMAL at three shapes.
func encodeTestColumns(t testing.TB) []types.Column {
	var cols []types.Column
	for i, s := range []string{"STRING", "BIGINT", "INTEGER", "BOOLEAN", "DOUBLE", "DECIMAL(4,2)",
		"DECIMAL(18,3)", "DECIMAL(30,0)", "TIMESTAMP", "DATE", "TIME", "BYTES", "ARRAY<STRING>",
		"MAP<STRING, BIGINT>", "STRUCT<A INTEGER, B DECIMAL(5,1)>"} {
		cols = append(cols, types.Column{Name: "C" + strconv.Itoa(i) + "\"é", Type: mustType(t, s)})
	}
	return cols
}

// randomValue is a value for a column of type t: most often of the Go
// type the column holds, sometimes NULL, another integer type, a value
// that does not fit or a Go type that does not match.
func randomValue(r *rand.Rand, t *types.Type) any {
	switch r.IntN(12) {
	case 0:
		return nil
	case 1:
		return []any{"x", 1, int32(2), int64(3), true, 1.5, types.Timestamp(4), (*apd.Decimal)(nil), nil}[r.IntN(9)]
	}
	switch t.Kind {
	case types.KindString:
		return randomString(r)
	case types.KindBigint:
		return []any{r.Int64() >> r.IntN(64), -r.Int64(), int64(math.MinInt64), int32(r.Int32()), r.IntN(100)}[r.IntN(5)]
	case types.KindInteger:
		return []any{r.Int32() >> r.IntN(32), int32(math.MinInt32), int64(7)}[r.IntN(3)]
	case types.KindBoolean:
		return r.IntN(2) == 0
	case types.KindDouble:
		return []float64{r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20)), math.NaN(), math.Inf(-1), math.Copysign(0, -1), 0, 1e7}[r.IntN(6)]
	case types.KindDecimal:
		return randomDecimal(r)
	case types.KindTimestamp:
		return types.Timestamp(r.Int64() >> r.IntN(64))
	case types.KindDate:
		return types.Date(r.Int32() >> 16)
	case types.KindTime:
		return types.Time(r.Int32N(86400000))
	case types.KindBytes:
		return []byte(randomString(r))
	case types.KindArray:
		return []any{randomString(r), nil, randomValue(r, t.Elem)}
	case types.KindMap:
		return map[string]any{randomString(r): randomValue(r, t.Elem), "k": int64(r.IntN(9))}
	case types.KindStruct:
		return &types.StructValue{Values: []any{randomValue(r, t.Fields[0].Type), randomValue(r, t.Fields[1].Type)}}
	}
	return nil
}

// randomString mixes plain ASCII, escapes, multi-byte UTF-8 and invalid
// bytes, at random lengths around the 8-byte blocks appendJSONString reads.
func randomString(r *rand.Rand) string {
	pieces := []string{"a", "Zz09", "\"", "\\", "\n", "\x00", "\x1f", "\x7f", " ", "é", "€", "😀", "\xff", "\xe2\x82", "/"}
	var b []byte
	for n := r.IntN(40); len(b) < n; {
		if r.IntN(3) == 0 {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		} else {
			b = append(b, byte('!'+r.IntN(90)))
		}
	}
	return string(b)
}

func randomDecimal(r *rand.Rand) any {
	if r.IntN(10) == 0 {
		return (*apd.Decimal)(nil)
	}
	return apd.New(r.Int64()>>r.IntN(64), -int32(r.IntN(6)))
}

// TestJSONEncodeMatchesGeneric: Encode with its per-column encoders writes
// the bytes (and fails with the errors) of appendJSON per value, over
// random rows of every type with NULLs, the Go integer types a BIGINT may
// be given, DECIMALs that must be rescaled or do not fit, and mismatched
// Go types; wrapped and unwrapped.
func TestJSONEncodeMatchesGeneric(t *testing.T) {
	cols := encodeTestColumns(t)
	wrapped := mustCodec(t, Spec{Name: JSON}, cols, false)
	r := rand.New(rand.NewPCG(1, 2))
	singles := make([]Codec, len(cols))
	for i, col := range cols {
		singles[i] = newJSONCodec([]types.Column{col}, true)
	}
	vals := make([]any, len(cols))
	var fails, oks int
	for range 20000 {
		for i, col := range cols {
			vals[i] = randomValue(r, col.Type)
		}
		got, gerr := wrapped.Encode(nil, vals)
		want, werr := encodeColumnsGeneric(nil, cols, vals)
		if !sameEncoding(got, gerr, want, werr) {
			t.Fatalf("row %v: got %q (%v), want %q (%v)", vals, got, gerr, want, werr)
		}
		for i, col := range cols {
			got, gerr := singles[i].Encode(nil, vals[i:i+1])
			want, werr := appendJSON(nil, vals[i], col.Type, topicStyle)
			if isNull(vals[i]) {
				want = nil
			}
			if !sameEncoding(got, gerr, want, werr) {
				t.Fatalf("unwrapped %s %v: got %q (%v), want %q (%v)", col.Type, vals[i], got, gerr, want, werr)
			}
			if werr != nil {
				fails++
			} else {
				oks++
			}
		}
	}
	if fails < 1000 || oks < 100000 {
		t.Fatalf("%d values encoded and %d failed: the rows do not cover both", oks, fails)
	}
}

func sameEncoding(got []byte, gerr error, want []byte, werr error) bool {
	if (gerr == nil) != (werr == nil) {
		return false
	}
	if gerr != nil {
		return gerr.Error() == werr.Error()
	}
	return bytes.Equal(got, want)
}

// TestJSONEncodeAllocations: a Nexmark bid encodes into a buffer with
// room for it in no allocation.
func TestJSONEncodeAllocations(t *testing.T) {
	c := mustCodec(t, Spec{Name: JSON}, bidOutputColumns(), false)
	vals := bidValues()
	buf := make([]byte, 0, 512)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.Encode(buf[:0], vals); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a bid encodes in %.1f allocations, want 0", allocs)
	}
}

// bidOutputColumns are Nexmark q0's output columns.
func bidOutputColumns() []types.Column {
	return []types.Column{{Name: "AUCTION", Type: types.BigintType}, {Name: "BIDDER", Type: types.BigintType},
		{Name: "PRICE", Type: types.BigintType}, {Name: "CHANNEL", Type: types.StringType},
		{Name: "URL", Type: types.StringType}, {Name: "DATETIME", Type: types.TimestampType},
		{Name: "EXTRA", Type: types.StringType}}
}

func bidValues() []any {
	return []any{int64(1007), int64(2001), int64(94562), "channel-4032",
		"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576",
		types.Timestamp(1700000000123), "extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq"}
}

// BenchmarkJSONEncodeBid encodes a Nexmark bid (q0's sink).
func BenchmarkJSONEncodeBid(b *testing.B) {
	c := mustCodec(b, Spec{Name: JSON}, bidOutputColumns(), false)
	vals := bidValues()
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		out, err := c.Encode(buf[:0], vals)
		if err != nil {
			b.Fatal(err)
		}
		buf = out
	}
	b.SetBytes(int64(len(buf)))
}

// appendJSONStringBytewise is appendJSONString one byte at a time, as it
// was before it skipped 8-byte blocks of plain ASCII.
func appendJSONStringBytewise(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		case c < utf8.RuneSelf:
			buf = appendEscape(buf, c)
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				buf = append(buf, "\uFFFD"...)
			} else {
				buf = append(buf, s[i:i+n]...)
			}
			i += n
		}
	}
	return append(buf, '"')
}

// TestAppendJSONStringMatchesBytewise: every byte value at every offset of
// strings up to three blocks long, and random strings mixing escapes and
// UTF-8 across the blocks, are written as the byte-wise loop writes them.
func TestAppendJSONStringMatchesBytewise(t *testing.T) {
	check := func(s string) {
		if got, want := appendJSONString(nil, s), appendJSONStringBytewise(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
	for n := 1; n <= 24; n++ {
		for at := 0; at < n; at++ {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[at] = byte(c)
				check(string(b))
				b[n-1-at] = '~' // 0x7e, the largest plain byte, beside it
				check(string(b))
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		check(randomString(r))
	}
}
