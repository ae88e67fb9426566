package format

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestTaskAvroDecodesAlike: a task's AVRO decoder (NewTaskValueDecoder,
// strings and boxes kept in an avro.Scratch from record to record)
// decodes every record as the full and pruned decoders do, fails alike on
// prefixes and corrupted payloads, and leaves the rows it gave out as
// they were while it decodes more (compareDecodes).
func TestTaskAvroDecodesAlike(t *testing.T) {
	reg, _ := newFakeRegistry(t)
	cols := parseColumns(t, pruneColumns, types.ValueNS)
	spec := Spec{Name: Avro, Registry: reg, Subject: ValueSubject("prune")}
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
		for n := 5; n < len(p); n++ { // the payload's bytes, after the wire header
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

// TestTaskAvroDecodeAllocations: a task's AVRO decoder decodes a page
// view without an allocation of its own (its strings share a slab, its
// boxes a chunk, with other records'), and each record's strings stay
// what they were while thousands more are decoded, long and empty ones
// included.
func TestTaskAvroDecodeAllocations(t *testing.T) {
	reg, _ := newFakeRegistry(t)
	cols := pageViewColumns()
	spec := Spec{Name: Avro, Registry: reg, Subject: ValueSubject("pv")}
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
