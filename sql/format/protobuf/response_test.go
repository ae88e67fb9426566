package protobuf

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestQueryResponseRoundTrip: a row encoded for a protobuf query response
// decodes, with the header's ProtoSchema, to the same values, and prints
// as ksqlDB's TextFormat does (key columns are fields like the others).
func TestQueryResponseRoundTrip(t *testing.T) {
	cols := parseColumns(t, "ID STRING\nWINDOWSTART BIGINT\nCOUNT BIGINT\nTAGS ARRAY<STRING>")
	cols[0].NS = types.KeyNS
	q, err := NewQueryResponse(cols)
	if err != nil {
		t.Fatal(err)
	}
	want := "syntax = \"proto3\";\n\nmessage ConnectDefault1 {\n  string ID = 1;\n  int64 WINDOWSTART = 2;\n  int64 COUNT = 3;\n  repeated string TAGS = 4;\n}\n"
	if q.ProtoSchema != want {
		t.Fatalf("protoSchema:\n%s\nwant:\n%s", q.ProtoSchema, want)
	}
	row := []any{"10", int64(12000), int64(0), []any{"a", "b"}}
	b, err := q.Row(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(q.ProtoSchema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]any, len(cols))
	if err := dec.Decode(b, got); err != nil {
		t.Fatal(err)
	}
	p, err := NewTextPrinter(q.ProtoSchema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := p.AppendText(nil, got)
	if err != nil {
		t.Fatal(err)
	}
	if want := "ID: \"10\"\nWINDOWSTART: 12000\nTAGS: \"a\"\nTAGS: \"b\"\n"; string(text) != want {
		t.Fatalf("decoded row prints\n%s\nwant\n%s", text, want)
	}
}
