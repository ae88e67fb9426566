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
	payload, err := hamba.Marshal(hamba.MustParse(writer), rec)
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
	if err := hamba.Unmarshal(hamba.MustParse(schema), b, &got); err != nil {
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
