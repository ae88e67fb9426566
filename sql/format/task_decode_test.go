package format

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestTaskRegistryDecodesAlike: a task's AVRO and PROTOBUF decoders
// (NewTaskValueDecoder, strings and boxes kept in a Scratch from record
// to record) decode every record as the full and pruned decoders do,
// fail alike on prefixes and corrupted payloads, and leave the rows they
// gave out as they were while they decode more (compareDecodes;
// TestUnreadProtobufFailsAlike does the same for PROTOBUF_NOSR).
func TestTaskRegistryDecodesAlike(t *testing.T) {
	for _, f := range []string{Avro, Protobuf} {
		t.Run(f, func(t *testing.T) { taskDecodesAlike(t, f) })
	}
}

func taskDecodesAlike(t *testing.T, f string) {
	reg, _ := newFakeRegistry(t)
	cols := parseColumns(t, pruneColumns, types.ValueNS)
	spec := Spec{Name: f, Registry: reg, Subject: ValueSubject("prune")}
	c, err := NewValueCodec(spec, cols)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var records []string
	for range 20 {
		p, err := c.Encode(nil, decodedRow(t, cols, goodJSON, rng))
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, string(p))
		for n := 5 + strings.Count(f, Protobuf); n < len(p); n++ { // the payload's bytes, after the wire header (and message index)
			bad := []byte(string(p))
			bad[n] ^= byte(1 + rng.IntN(255))
			records = append(records, string(p[:n]), string(bad))
		}
	}
	for _, read := range append(readMasks(len(cols)), nil) {
		if read == nil {
			read = make([]bool, len(cols))
			for i := range read {
				read[i] = true
			}
		}
		compareDecodes(t, spec, cols, read, records)
	}
}

// TestTaskDecodeAllocations: a task's AVRO, PROTOBUF and PROTOBUF_NOSR
// decoders decode a page view without an allocation of its own (its
// strings share a slab, its boxes a chunk, with other records'), and each
// record's strings stay what they were while thousands more are decoded,
// long and empty ones included.
func TestTaskDecodeAllocations(t *testing.T) {
	for _, f := range []string{Avro, Protobuf, ProtobufNoSR} {
		t.Run(f, func(t *testing.T) { taskDecodeAllocations(t, f) })
	}
}

func taskDecodeAllocations(t *testing.T, f string) {
	reg, _ := newFakeRegistry(t)
	cols := pageViewColumns()
	spec := Spec{Name: f, Registry: reg, Subject: ValueSubject("pv")}
	if f == ProtobufNoSR {
		spec = Spec{Name: f}
	}
	enc, err := NewValueCodec(spec, cols)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewTaskValueDecoder(spec, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	view := func(i int, page string) []any {
		return []any{fmt.Sprintf("u%d", i), page, int64(1_700_000_000_000 + i), "region-" + fmt.Sprint(i%7)}
	}
	data, err := enc.Encode(nil, view(1, "/product/12"))
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]any, len(cols))
	if err := c.Decode(data, dst); err != nil { // compiles the schema's decoder
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if err := c.Decode(data, dst); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0.5 {
		t.Errorf("a page view decodes in %.2f allocations, want a share of one (slab and chunks)", allocs)
	}
	var rows [][]any
	var want []string
	for i := range 3000 {
		page := fmt.Sprintf("/p/%d", i)
		switch i % 97 {
		case 0:
			page = strings.Repeat("long", 40) + page // longer than a slab's share
		case 1:
			page = ""
		}
		b, err := enc.Encode(nil, view(i, page))
		if err != nil {
			t.Fatal(err)
		}
		row := make([]any, len(cols))
		if err := c.Decode(b, row); err != nil {
			t.Fatal(err)
		}
		rows, want = append(rows, row), append(want, describe(row))
	}
	for i, row := range rows {
		if got := describe(row); got != want[i] {
			t.Fatalf("row %d changed from %s to %s after later decodes", i, want[i], got)
		}
	}
}
