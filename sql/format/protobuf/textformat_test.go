package protobuf

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestTextFormatMatchesRQTT prints rows of ksqlDB's rqtt
// pull-queries-protobuf.json (the JSON rows of its "query" responses,
// written here as Go values) and finds each text among the file's
// "queryProto" rows: map entries in HashMap order, defaults left out,
// bytes escaped, doubles as Java prints them.
func TestTextFormatMatchesRQTT(t *testing.T) {
	text := string(conformanceFile(t, "ksql-rqtt/pull-queries-protobuf.json"))
	want := map[string]bool{}
	for _, m := range regexp.MustCompile(`"row"\s*:\s*("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(text, -1) {
		var s string
		if err := json.Unmarshal([]byte(m[1]), &s); err != nil {
			t.Fatal(err)
		}
		want[s] = true
	}
	hdr := &types.Type{Kind: types.KindStruct, Fields: []types.Field{{Name: "KEY", Type: types.StringType}, {Name: "VALUE", Type: types.BytesType}}}
	cases := []struct {
		cols string
		rows [][]any
	}{
		{"ID BIGINT\nFILTERED_TRANSFORMED MAP<STRING, INTEGER>", [][]any{
			{int64(1), map[string]any{"C": int32(-1), "T": int32(3)}},
			{int64(2), map[string]any{"D": int32(4), "Q": int32(0)}},
			{int64(0), map[string]any{"A": int32(4), "B": int32(-1)}},
		}},
		{"MYKEY INTEGER\nMYVALUE INTEGER\nMYHEADERS ARRAY<STRUCT<KEY STRING, VALUE BYTES>>", [][]any{
			{int32(10), int32(1), []any{}},
			{int32(11), int32(2), []any{&types.StructValue{Type: hdr, Values: []any{"abc", []byte("!")}}}},
		}},
		{"PROFILEID STRING\nLATITUDE DOUBLE\nLONGITUDE DOUBLE", [][]any{
			{"which", 37.7877, -122.4205},
		}},
		{"ID STRING\nWINDOWSTART BIGINT\nWINDOWEND BIGINT\nCOUNT BIGINT\nROWTIME BIGINT", [][]any{
			{"10", int64(12000), int64(13000), int64(1), int64(12345)},
		}},
	}
	for _, c := range cases {
		cols := parseColumns(t, c.cols)
		schema, err := Schema(cols, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewTextPrinter(schema, nil, cols, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range c.rows {
			out, err := p.AppendText(nil, row)
			if err != nil {
				t.Fatal(err)
			}
			if !want[string(out)] {
				t.Errorf("row %v prints as %q, which is not one of ksqlDB's rows", row, out)
			}
		}
	}
}

func TestTextFormatEscapesAndNumbers(t *testing.T) {
	cols := parseColumns(t, "S STRING\nB BYTES\nD DOUBLE\nE DOUBLE\nTS TIMESTAMP")
	schema, err := Schema(cols, Options{NullableRepresentation: NullableWrapper})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewTextPrinter(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.AppendText(nil, []any{"é\"\n", []byte{0, 0xff}, 1e7, 0.0, types.Timestamp(1500)})
	if err != nil {
		t.Fatal(err)
	}
	want := "S {\n  value: \"\\303\\251\\\"\\n\"\n}\nB {\n  value: \"\\000\\377\"\n}\nD {\n  value: 1.0E7\n}\nE {\n}\nTS {\n  seconds: 1\n  nanos: 500000000\n}\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
}
