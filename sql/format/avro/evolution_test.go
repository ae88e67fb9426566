package avro

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestDecodeEvolution writes records with hamba under a writer schema and
// reads them with our decoder into other reader columns: fields skipped,
// missing, reordered, promoted, and logical types.
func TestDecodeEvolution(t *testing.T) {
	writer := `{"type":"record","name":"W","fields":[
		{"name":"gone","type":{"type":"array","items":{"type":"map","values":["null","string",{"type":"record","name":"Deep","fields":[{"name":"x","type":"double"}]}]}}},
		{"name":"i","type":"int"},
		{"name":"l","type":["null","long"]},
		{"name":"f","type":"float"},
		{"name":"s","type":"string"},
		{"name":"b","type":"bytes"},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"fx","type":{"type":"fixed","name":"Fx","size":4,"logicalType":"decimal","precision":8,"scale":2}},
		{"name":"skipped","type":["null","string"]},
		{"name":"u","type":["null","int","string"]}
	]}`
	rec := map[string]any{
		"gone": []any{map[string]any{"k": map[string]any{"Deep": map[string]any{"x": 1.5}}, "n": nil}},
		"i":    7, "l": map[string]any{"long": int64(-9)}, "f": float32(2.5),
		"s": "str", "b": []byte("by"), "e": "B", "ts": int64(1_700_000_000_123_456),
		"fx": big.NewRat(-500, 100), "skipped": "zz", "u": map[string]any{"string": "x"},
	}
	payload, err := hamba.Marshal(mustParse(writer), rec)
	if err != nil {
		t.Fatal(err)
	}
	cols := columns(t, []string{
		"U STRUCT<INT INT, STRING STRING>", "S BYTES", "B STRING", "I BIGINT", "L DOUBLE", "F DOUBLE",
		"E STRING", "TS TIMESTAMP", "FX DECIMAL(8, 2)", "MISSING INT", "i2 INT",
	})
	dec, err := NewDecoder(writer, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, len(cols))
	got[9] = "stale" // Decode clears slots the writer does not fill
	if err := dec.Decode(payload, got); err != nil {
		t.Fatal(err)
	}
	want := []any{
		&types.StructValue{Type: cols[0].Type, Values: []any{nil, "x"}},
		[]byte("str"), "by", int64(7), float64(-9), 2.5, "B",
		types.Timestamp(1_700_000_000_123), apd.New(-500, -2), nil, nil,
	}
	for i := range want {
		if !sameValue(got[i], want[i]) {
			t.Errorf("column %s: got %#v, want %#v", cols[i].Name, got[i], want[i])
		}
	}
}

// TestEncodeDefaults writes into a registered schema with more fields
// than columns: the extra fields take their defaults, and a field with
// none is an error naming it.
func TestEncodeDefaults(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[
		{"name":"A","type":["null","int"],"default":null},
		{"name":"EXTRA","type":"string","default":"dflt"},
		{"name":"N","type":["null","long"],"default":null},
		{"name":"K","type":"long","default":42}
	]}`
	cols := columns(t, []string{"A INT"})
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.Encode(nil, []any{int32(3)})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := hamba.Unmarshal(mustParse(schema), b, &got); err != nil {
		t.Fatal(err)
	}
	if got["A"] != 3 || got["EXTRA"] != "dflt" || got["N"] != nil || got["K"] != int64(42) {
		t.Fatalf("got %#v", got)
	}
	_, err = NewEncoder(`{"type":"record","name":"R","fields":[{"name":"REQ","type":"int"}]}`, nil, cols, Options{})
	if err == nil || !strings.Contains(err.Error(), "REQ has no default") {
		t.Fatalf("a field without a default or column: %v", err)
	}
}

// TestUnwrapped round-trips a bare key of each kind.
func TestUnwrapped(t *testing.T) {
	for _, def := range []string{"ROWKEY INT", "ROWKEY STRING", "ROWKEY DECIMAL(5, 1)", "ROWKEY STRUCT<A INT, B STRING>", "ROWKEY ARRAY<BIGINT>", "ROWKEY MAP<STRING, INT>"} {
		cols := columns(t, []string{def})
		o := Options{Unwrapped: true, Key: true, FullName: KeySchemaName("MY_SOURCE")}
		text, err := Schema(cols, o)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := NewEncoder(text, nil, cols, o)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := NewDecoder(text, nil, cols, o)
		if err != nil {
			t.Fatal(err)
		}
		rng := newRand()
		for range 50 {
			v := randValue(rng, cols[0].Type, 0)
			if v == nil && cols[0].Type.Kind != types.KindStruct {
				continue // a bare primitive is never null: a null key is a null record
			}
			if v == nil {
				continue
			}
			b, err := enc.Encode(nil, []any{v})
			if err != nil {
				t.Fatalf("%s: %v", def, err)
			}
			got := []any{nil}
			if err := dec.Decode(b, got); err != nil {
				t.Fatalf("%s: %v", def, err)
			}
			if !sameValue(got[0], v) {
				t.Fatalf("%s: got %#v, want %#v", def, got[0], v)
			}
		}
	}
	if got := KeySchemaName("MY_SOURCE"); got != "io.confluent.ksql.avro_schemas.MySourceKey" {
		t.Fatalf("KeySchemaName: %s", got)
	}
}

// TestDecodeErrors: bad bytes are errors with the column path and the
// offset, never panics; incompatible types fail at compile time naming
// the column.
func TestDecodeErrors(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[
		{"name":"A","type":["null","int"]},
		{"name":"S","type":{"type":"record","name":"In","fields":[{"name":"L","type":{"type":"array","items":"string"}}]}}
	]}`
	cols := columns(t, []string{"A INT", "S STRUCT<L ARRAY<STRING>>"})
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		payload []byte
		path    string
		offset  int
		msg     string
	}{
		{[]byte{}, "A", 0, "truncated"},
		{[]byte{0x06}, "A", 1, "union branch 3 out of range"},
		{[]byte{0x02, 0x80}, "A", 2, "truncated"},
		{[]byte{0x02, 0x02, 0x02, 0x10}, "S.L[]", 3, "a length of 8 with 0 bytes left"},
		{[]byte{0x00, 0xfe, 0xff, 0xff, 0xff, 0x0f}, "S.L", 6, "block of 2147483647 items"},
		{[]byte{0x00, 0x00, 0x07}, "", 2, "1 bytes left after the value"},
	} {
		err := dec.Decode(tc.payload, make([]any, 2))
		var de *DecodeError
		if !errors.As(err, &de) {
			t.Fatalf("% x: %v is not a *DecodeError", tc.payload, err)
		}
		if de.Path != tc.path || de.Offset != tc.offset || !strings.Contains(de.Msg, tc.msg) {
			t.Errorf("% x: got %q (path %q offset %d), want path %q offset %d %q", tc.payload, err, de.Path, de.Offset, tc.path, tc.offset, tc.msg)
		}
	}
	_, err = NewDecoder(schema, nil, columns(t, []string{"S STRUCT<L ARRAY<INT>>"}), Options{})
	if err == nil || !strings.Contains(err.Error(), "column S.L[]: the writer's Avro type string cannot be read as INTEGER") {
		t.Fatalf("incompatible reader: %v", err)
	}
	_, err = NewDecoder(`{"type":"record","name":"N","fields":[{"name":"next","type":["null","N"]}]}`, nil,
		columns(t, []string{"X INT"}), Options{})
	if err == nil || !strings.Contains(err.Error(), "recursive") {
		t.Fatalf("recursive writer: %v", err)
	}
}

// TestEncodeUnionStruct writes the STRUCT Columns infers for a union of
// several types back as that union, and reads it again.
func TestEncodeUnionStruct(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[{"name":"u","type":["null","int","string"]},{"name":"Q_A","type":["null","int"]}]}`
	cols, err := Columns(schema, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cols[1].Name = "Q.A" // a qualified column is written as Q_A
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ut := cols[0].Type
	for _, row := range [][]any{
		{&types.StructValue{Type: ut, Values: []any{nil, "s"}}, int32(4)},
		{&types.StructValue{Type: ut, Values: []any{int32(5), nil}}, nil},
		{nil, int32(1)},
	} {
		b, err := enc.Encode(nil, row)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]any, 2)
		if err := dec.Decode(b, got); err != nil {
			t.Fatal(err)
		}
		if !sameValue(got, row) {
			t.Fatalf("got %#v, want %#v", got, row)
		}
	}
}

// TestNullableRoot: a schema registered as ["null", record] infers,
// decodes and encodes as the record's columns.
func TestNullableRoot(t *testing.T) {
	schema := `["null",{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":["null","string"]}]}]`
	cols, err := Columns(schema, nil, Options{})
	if err != nil || len(cols) != 2 || cols[0].Name != "A" || cols[1].Name != "B" {
		t.Fatalf("columns %v, %v", cols, err)
	}
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := []any{int32(3), "x"}
	b, err := enc.Encode(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := hamba.Unmarshal(mustParse(schema), b, &generic); err != nil || generic["R"].(map[string]any)["a"] != 3 {
		t.Fatalf("hamba read %#v, %v", generic, err)
	}
	got := make([]any, 2)
	if err := dec.Decode(b, got); err != nil || !sameValue(got, row) {
		t.Fatalf("decoded %#v, %v", got, err)
	}
	if err := dec.Decode([]byte{0}, got); err != nil || got[0] != nil || got[1] != nil {
		t.Fatalf("the null branch decoded %#v, %v", got, err)
	}
}

// TestBlocksWithSizes reads arrays and maps written in several blocks,
// some with a negative count and a byte size (Avro's skippable blocks),
// and skips them when no column wants them.
func TestBlocksWithSizes(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"}},{"name":"m","type":{"type":"map","values":"string"}},{"name":"z","type":"int"}]}`
	payload := []byte{
		0x03, 0x04, 0x02, 0x04, // a: block of -2 items, 2 bytes: 1, 2
		0x02, 0x06, 0x00, // block of 1 item: 3; end
		0x01, 0x08, 0x02, 'k', 0x02, 'v', // m: block of -1 entry, 4 bytes: k → v
		0x00, // end
		0x0e, // z = 7
	}
	cols := columns(t, []string{"A ARRAY<INT>", "M MAP<STRING, STRING>", "Z INT"})
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, 3)
	if err := dec.Decode(payload, got); err != nil {
		t.Fatal(err)
	}
	want := []any{[]any{int32(1), int32(2), int32(3)}, map[string]any{"k": "v"}, int32(7)}
	if !sameValue(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	skip, err := NewDecoder(schema, nil, cols[2:], Options{})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:1]
	if err := skip.Decode(payload, got); err != nil || got[0] != int32(7) {
		t.Fatalf("skipping: %#v, %v", got, err)
	}
}

// TestUnionOfRecords reads a union of two records into a STRUCT column
// shaped like one of them: that branch decodes; the other, sharing no
// field with the column, reads as a struct of NULLs (Avro's resolution:
// reader fields the writer lacks take their default).
func TestUnionOfRecords(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[{"name":"v","type":["null",
		{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]},
		{"type":"record","name":"B","fields":[{"name":"y","type":"string"}]}]}]}`
	cols := columns(t, []string{"V STRUCT<X INT>"})
	dec, err := NewDecoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, 1)
	if err := dec.Decode([]byte{0x02, 0x0e}, got); err != nil {
		t.Fatal(err)
	}
	if want := (&types.StructValue{Type: cols[0].Type, Values: []any{int32(7)}}); !sameValue(got[0], want) {
		t.Fatalf("got %#v", got[0])
	}
	if err := dec.Decode([]byte{0x04, 0x02, 'y'}, got); err != nil {
		t.Fatal(err)
	}
	if want := (&types.StructValue{Type: cols[0].Type, Values: []any{nil}}); !sameValue(got[0], want) {
		t.Fatalf("the other record's branch: %#v", got[0])
	}
}

// TestEncodeUnionBranch: a value goes to the branch of its own Avro type
// when the union has one, else to the first branch that takes it.
func TestEncodeUnionBranch(t *testing.T) {
	schema := `{"type":"record","name":"R","fields":[{"name":"s","type":["null","bytes","string"]},{"name":"l","type":["int","long"]},{"name":"d","type":["float","null"]}]}`
	cols := columns(t, []string{"S STRING", "L BIGINT", "D DOUBLE"})
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := enc.Encode(nil, []any{"x", int64(1), nil})
	if err != nil {
		t.Fatal(err)
	}
	// s: branch 2 (string) "x"; l: branch 1 (long) 1; d: branch 1 (null).
	if want := []byte{0x04, 0x02, 'x', 0x02, 0x02, 0x02}; string(b) != string(want) {
		t.Fatalf("encoded % x, want % x", b, want)
	}
}
