package protobuf

import (
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/sqlstream/sqlstream/sql/types"
)

// A Nexmark Bid as ksqlDB registers it: seven fields, one a Timestamp.
const bidColumns = `
AUCTION BIGINT
BIDDER BIGINT
PRICE BIGINT
CHANNEL STRING
URL STRING
DATETIME TIMESTAMP
EXTRA STRING
`

func bidRow() []any {
	return []any{int64(1007), int64(2001), int64(48_723_911), "channel-3197",
		"https://www.nexmark.com/hvb/sltx/ixvd/item.htm?query=1&channel_id=1547", types.Timestamp(1_700_000_123_456), "tyxnnnrgtibrtqzyp"}
}

type bidFixture struct {
	cols    []types.Column
	schema  string
	payload []byte
	msg     *dynamicpb.Message
}

func newBidFixture(b *testing.B) bidFixture {
	cols := parseColumns(b, bidColumns)
	schema, err := Schema(cols, Options{})
	if err != nil {
		b.Fatal(err)
	}
	md := compileMessage(b, schema, nil, "")
	msg := toDynamic(b, md, columnFields(cols), bidRow())
	payload, err := proto.Marshal(msg)
	if err != nil {
		b.Fatal(err)
	}
	return bidFixture{cols: cols, schema: schema, payload: payload, msg: msg}
}

func BenchmarkProtobufDecode(b *testing.B) {
	f := newBidFixture(b)
	dec, err := NewDecoder(f.schema, nil, f.cols, Options{})
	if err != nil {
		b.Fatal(err)
	}
	row := make([]any, len(f.cols))
	b.SetBytes(int64(len(f.payload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := dec.Decode(f.payload, row); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDynamicpbDecode is the same bytes through protobuf-go's
// generic path, for comparison (no conversion to a row included).
func BenchmarkDynamicpbDecode(b *testing.B) {
	f := newBidFixture(b)
	md := f.msg.Descriptor()
	b.SetBytes(int64(len(f.payload)))
	b.ReportAllocs()
	for b.Loop() {
		m := dynamicpb.NewMessage(md)
		if err := proto.Unmarshal(f.payload, m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProtobufEncode(b *testing.B) {
	f := newBidFixture(b)
	enc, err := NewEncoder(f.schema, nil, f.cols, Options{})
	if err != nil {
		b.Fatal(err)
	}
	row := bidRow()
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(f.payload)))
	b.ReportAllocs()
	for b.Loop() {
		if buf, err = enc.Encode(buf[:0], row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDynamicpbEncode(b *testing.B) {
	f := newBidFixture(b)
	buf := make([]byte, 0, 256)
	b.SetBytes(int64(len(f.payload)))
	b.ReportAllocs()
	var err error
	for b.Loop() {
		if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf[:0], f.msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProtobufCompile(b *testing.B) {
	f := newBidFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewDecoder(f.schema, nil, f.cols, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeAllocations: a Nexmark bid decodes in three allocations —
// the payload's text, which its strings share, the arena's frame boxing
// its strings and BIGINTs, and the timestamp — and its values survive
// the next record's decode and a collection.
func TestDecodeAllocations(t *testing.T) {
	f := newBidFixture(&testing.B{})
	dec, err := NewDecoder(f.schema, nil, f.cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, row := make([]any, len(f.cols)), make([]any, len(f.cols))
	if err := dec.Decode(f.payload, first); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := dec.Decode(f.payload, row); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 {
		t.Errorf("a bid decodes in %.0f allocations, want 3", allocs)
	}
	runtime.GC()
	for i, want := range bidRow() {
		if first[i] != want || row[i] != want {
			t.Errorf("column %s: %#v and %#v, want %#v", f.cols[i].Name, first[i], row[i], want)
		}
	}
}
