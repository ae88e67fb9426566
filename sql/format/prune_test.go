package format

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// pruneColumns has every SQL type, nested.
const pruneColumns = `
B BOOLEAN
I INT
L BIGINT
D DOUBLE
S STRING
BY BYTES
DEC DECIMAL(4, 2)
DT DATE
TS TIMESTAMP
A ARRAY<INT>
M MAP<STRING, BIGINT>
ST STRUCT<F INT, G ARRAY<STRING>>
`

// goodJSON is a record of pruneColumns that decodes.
const goodJSON = `{"B":true,"I":"12","L":1700000000123,"D":"2.5","S":{"x":[1, "é"]},"BY":"AQID","DEC":12.34,` +
	`"DT":19000,"TS":1700000000000,"A":[1,null,3],"M":{"a":1,"b":null},"ST":{"f":1,"G":["x"]},"extra":[{"deep":1}]}`

// badJSON are records ksqlDB rejects, each for one column (or the syntax).
var badJSON = []string{
	`{"B":1}`, `{"I":"x"}`, `{"I":3000000000}`, `{"L":[1]}`, `{"L":1e40}`, `{"D":"abc"}`, `{"D":true}`,
	`{"S":"a` + "\x01" + `"}`, `{"S":"` + "\xff" + `"}`, `{"S":nul}`, `{"BY":"!!"}`, `{"BY":1}`, `{"DEC":123.4}`,
	`{"DT":"x"}`, `{"TS":{}}`, `{"A":5}`, `{"A":[1,"x"]}`, `{"A":[1,2}`, `{"M":{"a":"b"}}`, `{"M":[1]}`,
	`{"M":{1:2}}`, `{"ST":3}`, `{"ST":{"F":"x"}}`, `{"ST":{"G":[1,{}]}}`, `{"ST":{"f":1,"F":"y"}}`,
	`{"I":1,"I":"z"}`, `{"i":"z"}`, `{"extra":[1,}`, `[1]`, `"x"`, `{"B":true} x`,
}

// TestUnreadJSONFailsAlike: for each column unread (and all at once), a
// pruned JSON codec fails on exactly the records the full codec fails
// on, with the same error, and decodes the read columns to the same
// values; unread columns are NULL.
func TestUnreadJSONFailsAlike(t *testing.T) {
	cols := parseColumns(t, pruneColumns, types.ValueNS)
	records := append([]string{goodJSON, `{}`, `null`, `{"b":false,"S":null}`}, badJSON...)
	for n := range len(goodJSON) {
		records = append(records, goodJSON[:n])
	}
	for _, read := range readMasks(len(cols)) {
		compareDecodes(t, Spec{Name: JSON}, cols, read, records)
	}
}

// TestUnreadUnwrappedJSON: a single unwrapped column unread is still
// checked.
func TestUnreadUnwrappedJSON(t *testing.T) {
	cols := parseColumns(t, "V BIGINT", types.ValueNS)
	wrap := false
	compareDecodes(t, Spec{Name: JSON, WrapSingle: &wrap}, cols, []bool{false},
		[]string{`12`, `"13"`, `"x"`, `[1]`, `1e40`, ``, `null`, `1 2`})
}

// TestUnreadProtobufFailsAlike is the same for PROTOBUF_NOSR (the
// protobuf decoder the registry format shares): valid messages of random
// rows, their prefixes and single-byte corruptions.
func TestUnreadProtobufFailsAlike(t *testing.T) {
	cols := parseColumns(t, pruneColumns, types.ValueNS)
	spec := Spec{Name: ProtobufNoSR}
	c, err := NewValueCodec(spec, cols)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var records []string
	for range 30 {
		p, err := c.Encode(nil, decodedRow(t, cols, goodJSON, rng))
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, string(p))
		for n := range len(p) {
			bad := []byte(string(p))
			bad[n] ^= byte(1 + rng.IntN(255))
			records = append(records, string(p[:n]), string(bad))
		}
	}
	for _, read := range readMasks(len(cols)) {
		compareDecodes(t, spec, cols, read, records)
	}
}

// decodedRow is goodJSON's row with some columns NULL at random.
func decodedRow(t *testing.T, cols []types.Column, record string, rng *rand.Rand) []any {
	c, err := NewValueCodec(Spec{Name: JSON}, cols)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, len(cols))
	if err := c.Decode([]byte(record), row); err != nil {
		t.Fatal(err)
	}
	for i := range row {
		if rng.IntN(4) == 0 {
			row[i] = nil
		}
	}
	return row
}

// TestUnreadAvroThroughRegistry: AVRO's codec passes the columns read to
// the decoders it compiles per writer schema.
func TestUnreadAvroThroughRegistry(t *testing.T) {
	reg, _ := newFakeRegistry(t)
	cols := parseColumns(t, "ID INT\nNAME STRING\nEXTRA STRING", types.ValueNS)
	spec := Spec{Name: Avro, Registry: reg, Subject: ValueSubject("users")}
	full, err := NewValueCodec(spec, cols)
	if err != nil {
		t.Fatal(err)
	}
	b, err := full.Encode(nil, []any{int32(7), "ann", "padding"})
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := NewValueDecoder(spec, cols, []bool{true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	dst := []any{nil, "stale", "stale"}
	if err := pruned.Decode(b, dst); err != nil || dst[0] != int32(7) || dst[1] != nil || dst[2] != nil {
		t.Fatalf("decoded %v, %v; want [7 <nil> <nil>]", dst, err)
	}
	if err := pruned.Decode(b[:len(b)-1], dst); err == nil {
		t.Fatal("a truncated record decoded with its unread columns")
	}
}

// TestUnreadDecodeAllocations: a Nexmark bid of which a query reads two
// columns allocates nothing for the others (no string, no box).
func TestUnreadDecodeAllocations(t *testing.T) {
	cols := parseColumns(t, "AUCTION BIGINT\nBIDDER BIGINT\nPRICE BIGINT\nCHANNEL STRING\nURL STRING\nDATETIME BIGINT\nEXTRA STRING", types.ValueNS)
	bid := []byte(`{"AUCTION":1007,"BIDDER":2001,"PRICE":94562,"CHANNEL":"channel-4032",` +
		`"URL":"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576",` +
		`"DATETIME":1700000000123,"EXTRA":"extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq"}`)
	pb, err := NewValueCodec(Spec{Name: ProtobufNoSR}, cols)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]any, len(cols))
	jc, _ := NewValueCodec(Spec{Name: JSON}, cols)
	if err := jc.Decode(bid, row); err != nil {
		t.Fatal(err)
	}
	bidPB, err := pb.Encode(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spec Spec
		data []byte
		read []bool
		most float64
	}{
		{Spec{Name: JSON}, bid, nil, 6}, // the text, the arena, four BIGINT boxes
		{Spec{Name: JSON}, bid, []bool{true, false, true, false, false, false, false}, 2}, // the two BIGINT boxes
		{Spec{Name: JSON}, bid, make([]bool, 7), 0},
		{Spec{Name: ProtobufNoSR}, bidPB, nil, 2},                                                   // the text, the arena
		{Spec{Name: ProtobufNoSR}, bidPB, []bool{true, false, true, false, false, false, false}, 1}, // the arena
		{Spec{Name: ProtobufNoSR}, bidPB, make([]bool, 7), 0},
	} {
		codec, err := NewValueDecoder(c.spec, cols, c.read)
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]any, len(cols))
		allocs := testing.AllocsPerRun(200, func() {
			if err := codec.Decode(c.data, dst); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s read %v: %.0f allocations per bid", c.spec.Name, c.read, allocs)
		if allocs > c.most {
			t.Errorf("%s read %v: %.0f allocations per bid, want at most %.0f", c.spec.Name, c.read, allocs, c.most)
		}
	}
}

// readMasks: each column unread alone, then none read.
func readMasks(n int) [][]bool {
	var out [][]bool
	for i := range n {
		read := make([]bool, n)
		for j := range read {
			read[j] = j != i
		}
		out = append(out, read)
	}
	return append(out, make([]bool, n))
}

func compareDecodes(t *testing.T, spec Spec, cols []types.Column, read []bool, records []string) {
	t.Helper()
	full, err := NewValueCodec(spec, cols)
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := NewValueDecoder(spec, cols, read)
	if err != nil {
		t.Fatal(err)
	}
	task, err := NewTaskValueDecoder(spec, cols, read)
	if err != nil {
		t.Fatal(err)
	}
	var kept [][]any // the task decoder's rows, which later decodes must leave as they were
	var keptWant []string
	defer func() {
		for i, row := range kept {
			if describe(row) != keptWant[i] {
				t.Fatalf("%s read %v: task decoder's row %d changed to %s, was %s", spec.Name, read, i, describe(row), keptWant[i])
			}
		}
	}()
	for _, r := range records {
		want, got, own := make([]any, len(cols)), make([]any, len(cols)), make([]any, len(cols))
		werr, gerr, oerr := full.Decode([]byte(r), want), pruned.Decode([]byte(r), got), task.Decode([]byte(r), own)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%s read %v, record %q: error %v, want %v", spec.Name, read, r, gerr, werr)
		}
		if fmt.Sprint(oerr) != fmt.Sprint(gerr) || oerr == nil && describe(own) != describe(got) {
			t.Fatalf("%s read %v, record %q: task decoder %s (%v), want %s (%v)", spec.Name, read, r, describe(own), oerr, describe(got), gerr)
		}
		if werr != nil {
			continue
		}
		kept, keptWant = append(kept, own), append(keptWant, describe(own))
		for j, c := range cols {
			switch {
			case !read[j] && got[j] != nil:
				t.Fatalf("%s read %v, record %q: unread %s = %s, want NULL", spec.Name, read, r, c.Name, describe(got[j]))
			case read[j] && describe(got[j]) != describe(want[j]):
				t.Fatalf("%s read %v, record %q: %s = %s, want %s", spec.Name, read, r, c.Name, describe(got[j]), describe(want[j]))
			}
		}
	}
}

// BenchmarkBidDecode decodes a Nexmark bid reading every column, two
// (q2's AUCTION and PRICE) and none (a GROUP BY on the key).
func BenchmarkBidDecode(b *testing.B) {
	cols := parseColumns(b, "AUCTION BIGINT\nBIDDER BIGINT\nPRICE BIGINT\nCHANNEL STRING\nURL STRING\nDATETIME BIGINT\nEXTRA STRING", types.ValueNS)
	bid := []byte(`{"AUCTION":1007,"BIDDER":2001,"PRICE":94562,"CHANNEL":"channel-4032",` +
		`"URL":"https://www.nexmark.com/apple/banana/item.htm?query=1&channel_id=1048576",` +
		`"DATETIME":1700000000123,"EXTRA":"extra-kgjbjxfnmoqyrmzkhpcrmtnzpcadwcgqqsoxwwqq"}`)
	row := make([]any, len(cols))
	jc, _ := NewValueCodec(Spec{Name: JSON}, cols)
	if err := jc.Decode(bid, row); err != nil {
		b.Fatal(err)
	}
	pc, _ := NewValueCodec(Spec{Name: ProtobufNoSR}, cols)
	bidPB, err := pc.Encode(nil, row)
	if err != nil {
		b.Fatal(err)
	}
	reads := map[string][]bool{"all": nil, "two": {true, false, true, false, false, false, false}, "none": make([]bool, 7)}
	for _, f := range []struct {
		spec Spec
		data []byte
	}{{Spec{Name: JSON}, bid}, {Spec{Name: ProtobufNoSR}, bidPB}} {
		for _, name := range []string{"all", "two", "none"} {
			b.Run(f.spec.Name+"/"+name, func(b *testing.B) {
				c, err := NewValueDecoder(f.spec, cols, reads[name])
				if err != nil {
					b.Fatal(err)
				}
				dst := make([]any, len(cols))
				b.ReportAllocs()
				for b.Loop() {
					if err := c.Decode(f.data, dst); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
