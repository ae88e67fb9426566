package format

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

func TestJSON(t *testing.T) { runCodecTest(t, "testdata/json") }

// pageViewColumns is the schema of the benchmark's page views.
func pageViewColumns() []types.Column {
	return []types.Column{
		{Name: "USER_ID", Type: types.StringType},
		{Name: "PAGE", Type: types.StringType},
		{Name: "MS", Type: types.BigintType},
		{Name: "REGION", Type: types.StringType},
	}
}

const pageView = `{"USER_ID":"user_4711","PAGE":"/product/7","MS":1700000000123,"REGION":"eu-west-1"}`

func BenchmarkJSONDecode(b *testing.B) {
	c, err := NewValueCodec(Spec{Name: JSON}, pageViewColumns())
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(pageView)
	dst := make([]any, 4)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Decode(data, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONDecodeStdlib is the baseline the hand-written scanner is
// measured against: encoding/json into a map, then a lookup per column.
func BenchmarkJSONDecodeStdlib(b *testing.B) {
	data := []byte(pageView)
	cols := pageViewColumns()
	dst := make([]any, 4)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
		for i, c := range cols {
			dst[i] = m[c.Name]
		}
	}
}

func BenchmarkJSONEncode(b *testing.B) {
	c, err := NewValueCodec(Spec{Name: JSON}, pageViewColumns())
	if err != nil {
		b.Fatal(err)
	}
	vals := []any{"user_4711", "/product/7", int64(1700000000123), "eu-west-1"}
	buf := make([]byte, 0, 256)
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

// nestedColumns exercises every decoder path in FuzzJSONDecode.
func nestedColumns(t testing.TB) []types.Column {
	return []types.Column{
		{Name: "S", Type: mustType(t, "STRUCT<A ARRAY<DOUBLE>, M MAP<STRING, DECIMAL(10,2)>, B BOOLEAN>")},
		{Name: "BY", Type: types.BytesType},
		{Name: "TS", Type: types.TimestampType},
		{Name: "I", Type: types.IntegerType},
		{Name: "DT", Type: types.DateType},
	}
}

// FuzzJSONDecode checks that no input panics the decoder and that whatever
// decodes re-encodes to JSON that decodes to the same values, for a flat
// and a nested schema.
func FuzzJSONDecode(f *testing.F) {
	for _, s := range []string{
		pageView, `{}`, `null`, `{"user_id":1,"ms":"12"}`, `{"PAGE":{"a":[1,{"b":null}]}}`,
		`{"PAGE":"\u00e9\ud83d\ude00\\"}`, `[`, `{"MS":1e400}`, `{"USER_ID":"` + strconv.Itoa(1<<40) + `"}`,
		`{"s":{"a":[1.5,-2e-7,null],"m":{"k":"12.345"},"b":true},"BY":"AQID","ts":"-5","i":7.9,"dt":3}`,
	} {
		f.Add([]byte(s))
	}
	schemas := [][]types.Column{pageViewColumns(), nestedColumns(f)}
	codecs := make([]Codec, len(schemas))
	for i, cols := range schemas {
		codecs[i] = mustCodec(f, Spec{Name: JSON}, cols, false)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i, c := range codecs {
			checkJSONRoundTrip(t, c, schemas[i], data)
		}
	})
}

func checkJSONRoundTrip(t *testing.T, c Codec, cols []types.Column, data []byte) {
	dst := make([]any, len(cols))
	if c.Decode(data, dst) != nil {
		return
	}
	out, err := c.Encode(nil, dst)
	if err != nil {
		t.Fatalf("encode %v: %v", dst, err)
	}
	again := make([]any, len(cols))
	if err := c.Decode(out, again); err != nil {
		t.Fatalf("re-decode %q: %v", out, err)
	}
	if a, b := describeRow(cols, dst), describeRow(cols, again); a != b {
		t.Fatalf("round trip through %s changed\n%s to\n%s", out, a, b)
	}
}

// TestJSONManyColumns covers the map index (more than smallObject names)
// and exact matches beyond the first 64 columns.
func TestJSONManyColumns(t *testing.T) {
	cols := make([]types.Column, 70)
	for i := range cols {
		cols[i] = types.Column{Name: "C" + strconv.Itoa(i), Type: types.IntegerType}
	}
	c := mustCodec(t, Spec{Name: JSON}, cols, false)
	dst := make([]any, len(cols))
	if err := c.Decode([]byte(`{"c69": 1, "C69": 2, "c69": 3, "c3": 4, "C1": 5, "x": 6}`), dst); err != nil {
		t.Fatal(err)
	}
	if dst[69] != int32(2) || dst[3] != int32(4) || dst[1] != int32(5) || dst[0] != nil {
		t.Fatalf("decoded C0=%v C1=%v C3=%v C69=%v", dst[0], dst[1], dst[3], dst[69])
	}
}

// TestJSONDecodeAllocations: a page view (three strings, a BIGINT)
// decodes in three allocations — the record's text, which its strings
// share, one arena chunk for the strings' boxes and the number's box —
// instead of one per string box; the values are the Go
// types sql/types defines and survive the next record's decode.
func TestJSONDecodeAllocations(t *testing.T) {
	c, err := NewValueCodec(Spec{Name: JSON}, pageViewColumns())
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(pageView)
	first := make([]any, 4)
	if err := c.Decode(data, first); err != nil {
		t.Fatal(err)
	}
	dst := make([]any, 4)
	allocs := testing.AllocsPerRun(100, func() {
		if err := c.Decode(data, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 {
		t.Errorf("a page view decodes in %.0f allocations, want 3", allocs)
	}
	want := []any{"user_4711", "/product/7", int64(1700000000123), "eu-west-1"}
	for i := range want {
		if first[i] != want[i] || dst[i] != want[i] {
			t.Errorf("column %d: %#v and %#v, want %#v", i, first[i], dst[i], want[i])
		}
	}
	if _, ok := first[2].(int64); !ok {
		t.Errorf("MS decoded as %T", first[2])
	}
}

// TestTaskJSONDecodeAllocations: a task's own JSON decoder decodes a page
// view in one allocation, MS's box (its strings go into the decoder's
// slab and arena, not a copy of the record and an arena each), and each
// record's strings stay what they were while more records are decoded
// (new slabs and chunks, never rewritten), escaped, long and empty ones
// included.
func TestTaskJSONDecodeAllocations(t *testing.T) {
	c, err := NewTaskValueDecoder(Spec{Name: JSON}, pageViewColumns(), []bool{true, true, true, true})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte(pageView)
	dst := make([]any, 4)
	allocs := testing.AllocsPerRun(1000, func() {
		if err := c.Decode(data, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.125 {
		t.Errorf("a page view decodes in %.2f allocations, want at most 1/8 (the slab's and the arena's chunks)", allocs)
	}
	var rows [][]any
	var want []string
	for i := range 3000 {
		page := fmt.Sprintf("/p/%d", i)
		switch i % 97 {
		case 0:
			page = strings.Repeat("long", 40) + page
		case 1:
			page = ""
		case 2:
			page = `a\"b` + page
		}
		row := make([]any, 4)
		rec := fmt.Sprintf(`{"USER_ID":"u%d","PAGE":"%s","MS":%d,"REGION":"r"}`, i, page, i)
		if err := c.Decode([]byte(rec), row); err != nil {
			t.Fatal(err)
		}
		rows, want = append(rows, row), append(want, fmt.Sprintf(`[u%d %s %d r]`, i, strings.ReplaceAll(page, `\"`, `"`), i))
	}
	for i, row := range rows {
		if got := fmt.Sprint(row); got != want[i] {
			t.Fatalf("row %d is %s, want %s", i, got, want[i])
		}
	}
}

// TestTaskJSONNumbersBoxedInTheArena: a task's decoder boxes BIGINT,
// TIMESTAMP and DOUBLE values in its arena, a Nexmark bid (four of them)
// then decoding in less than one allocation where each box was one; the
// values keep their Go types (int64, types.Timestamp, float64; small
// integers too) and stay what they were while thousands of records are
// decoded after them.
func TestTaskJSONNumbersBoxedInTheArena(t *testing.T) {
	cols := []types.Column{
		{Name: "AUCTION", Type: types.BigintType}, {Name: "PRICE", Type: types.BigintType},
		{Name: "DATE_TIME", Type: types.TimestampType}, {Name: "RATE", Type: types.DoubleType}, {Name: "CHANNEL", Type: types.StringType},
	}
	c, err := NewTaskValueDecoder(Spec{Name: JSON}, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	record := func(i int) []byte {
		return []byte(fmt.Sprintf(`{"AUCTION":%d,"PRICE":%d,"DATE_TIME":%d,"RATE":%d.5,"CHANNEL":"c%d"}`, 1000+i, i%300, 1700000000000+i, i, i))
	}
	var rows [][]any
	for i := range 3000 {
		row := make([]any, len(cols))
		if err := c.Decode(record(i), row); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	for i, row := range rows {
		want := []any{int64(1000 + i), int64(i % 300), types.Timestamp(1700000000000 + i), float64(i) + 0.5, fmt.Sprint("c", i)}
		for j := range want {
			if row[j] != want[j] {
				t.Fatalf("row %d column %d is %T %v, want %T %v", i, j, row[j], row[j], want[j], want[j])
			}
		}
	}
	data, dst := record(77), make([]any, len(cols))
	allocs := testing.AllocsPerRun(1000, func() {
		if err := c.Decode(data, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.5 {
		t.Errorf("a record of four numbers and a string decodes in %.2f allocations, want at most 1/2 (the arena's chunks)", allocs)
	}
}
