package avro

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestUnreadColumnsFailAlike is the differential test of Options.Read:
// for every column left unread (and all of them at once), a decoder that
// checks it instead of decoding it must fail on exactly the payloads the
// full decoder fails on, with the same error, and decode the other
// columns to the same values. Payloads: valid rows of every type, every
// prefix of them, and single-byte corruptions.
func TestUnreadColumnsFailAlike(t *testing.T) {
	cols := columns(t, roundTripCols)
	text, err := Schema(cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := NewEncoder(text, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	payloads := corruptions(t, enc, cols)
	for _, read := range readMasks(len(cols)) {
		compareReads(t, text, cols, read, payloads)
	}
}

// TestUnreadUnionBranches: a union branch the column cannot take, an int
// past 32 bits and a decimal that does not fit fail the same unread.
func TestUnreadUnionBranches(t *testing.T) {
	writer := `{"type":"record","name":"W","fields":[
		{"name":"u","type":["null","string","boolean"]},
		{"name":"i","type":"int"},
		{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":3}},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}}
	]}`
	cols := columns(t, []string{"U STRING", "I INT", "D DECIMAL(3, 1)", "E STRING"})
	payloads := [][]byte{
		{2, 2, 'x', 2, 4, 0x01, 0x02, 0},        // u "x", i 1, d 0.258, e A
		{4, 1, 2, 2, 0x01, 0x02, 0},             // u true: not a STRING
		{0, 0xff, 0xff, 0xff, 0xff, 0x1f, 0, 2}, // i past 32 bits
		{0, 2, 6, 0x7f, 0xff, 0xff, 0},          // d 8388.607 does not fit DECIMAL(3, 1)
		{0, 2, 0, 8},                            // e index 4 of 2 symbols
		{6, 2, 0, 0},                            // union branch 3 of 3
	}
	for _, read := range readMasks(len(cols)) {
		compareReads(t, writer, cols, read, payloads)
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

// corruptions are valid payloads of random rows, their prefixes and
// copies with one byte changed.
func corruptions(t *testing.T, enc Encoder, cols []types.Column) [][]byte {
	rng := newRand()
	var out [][]byte
	for range 40 {
		row := make([]any, len(cols))
		for j, c := range cols {
			row[j] = randValue(rng, c.Type, 0)
		}
		p, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
		for n := range len(p) {
			out = append(out, p[:n])
			bad := append([]byte(nil), p...)
			bad[n] ^= byte(1 + rng.IntN(255))
			out = append(out, bad)
		}
	}
	return out
}

func compareReads(t *testing.T, writer string, cols []types.Column, read []bool, payloads [][]byte) {
	t.Helper()
	full, err := NewDecoder(writer, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pruned, err := NewDecoder(writer, nil, cols, Options{Read: read})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range payloads {
		want, got := make([]any, len(cols)), make([]any, len(cols))
		werr, gerr := full.Decode(p, want), pruned.Decode(p, got)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("read %v, payload % x: error %v, want %v", read, p, gerr, werr)
		}
		if werr != nil {
			continue
		}
		for j := range cols {
			if !read[j] && got[j] != nil {
				t.Fatalf("read %v, payload % x: unread column %s = %#v, want NULL", read, p, cols[j].Name, got[j])
			}
			if read[j] && !sameValue(got[j], want[j]) {
				t.Fatalf("read %v, payload % x: column %s = %#v, want %#v", read, p, cols[j].Name, got[j], want[j])
			}
		}
	}
}

// TestUnreadDecodeAllocations: a bid of which a query reads AUCTION and
// PRICE decodes in one allocation (the arena's chunk of words), none for
// the strings it does not read (the slab) and none with nothing read.
func TestUnreadDecodeAllocations(t *testing.T) {
	bn := newBench(&testing.B{})
	cols := columns(t, bidCols)
	for _, c := range []struct {
		read []bool
		most float64
	}{
		{nil, 2},
		{[]bool{true, false, true, false, false, false, false}, 1},
		{make([]bool, len(cols)), 0},
	} {
		dec, err := NewDecoder(bn.text, nil, cols, Options{Read: c.read})
		if err != nil {
			t.Fatal(err)
		}
		dst := make([]any, len(cols))
		allocs := testing.AllocsPerRun(200, func() {
			if err := dec.Decode(bn.payload, dst); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("read %v: %.0f allocations per bid", c.read, allocs)
		if allocs > c.most {
			t.Errorf("read %v: %.0f allocations per bid, want at most %.0f", c.read, allocs, c.most)
		}
		for i := range dst {
			if c.read != nil && !c.read[i] && dst[i] != nil {
				t.Errorf("read %v: unread %s = %#v", c.read, bidCols[i], dst[i])
			}
		}
	}
}
