package avro

import (
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestEncodeNullTakesFieldDefault: a NULL written into a field whose Avro
// type cannot be null takes the field's default, as Kafka Connect's
// AvroData writes it (ksqlDB's INSERT of a STRUCT missing a field); a
// nullable field stays null; a field with neither is an error naming it.
func TestEncodeNullTakesFieldDefault(t *testing.T) {
	schema := `{"type":"record","name":"Test","fields":[
		{"name":"ID","type":"string"},
		{"name":"S","type":{"type":"record","name":"Inner","fields":[
			{"name":"VOTES","type":"long","default":10},
			{"name":"NOTE","type":["null","string"],"default":null},
			{"name":"EMAIL","type":"string"}]}}]}`
	cols := parseCols(t, "ID STRING\nS STRUCT<VOTES BIGINT, NOTE STRING, EMAIL STRING>")
	enc, err := NewEncoder(schema, nil, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := func(votes, note, email any) []any {
		return []any{"abc", &types.StructValue{Type: cols[1].Type, Values: []any{votes, note, email}}}
	}
	b, err := enc.Encode(nil, row(nil, nil, "a@b.c"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := hamba.Unmarshal(hamba.MustParse(schema), b, &got); err != nil {
		t.Fatal(err)
	}
	s := got["S"].(map[string]any)
	if s["VOTES"] != int64(10) || s["NOTE"] != nil || s["EMAIL"] != "a@b.c" {
		t.Fatalf("decoded %v, want VOTES 10 (the default), NOTE null, EMAIL a@b.c", got)
	}
	if _, err := enc.Encode(nil, row(int64(3), nil, nil)); err == nil || !strings.Contains(err.Error(), "S.EMAIL is NULL") {
		t.Fatalf("NULL into a non-nullable field without a default: %v, want an error naming S.EMAIL", err)
	}
}
