package avro

import (
	"strings"
	"testing"

	hamba "github.com/hamba/avro/v2"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestReferences: a schema naming types registered under other subjects
// (Confluent schema references) infers, decodes and encodes through Refs;
// references may name each other in any order.
func TestReferences(t *testing.T) {
	refs := Refs{
		"com.acme.Address": `{"type":"record","name":"Address","namespace":"com.acme","fields":[{"name":"city","type":"string"},{"name":"geo","type":"com.acme.Geo"}]}`,
		"com.acme.Geo":     `{"type":"record","name":"Geo","namespace":"com.acme","fields":[{"name":"lat","type":"double"}]}`,
	}
	schema := `{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"id","type":"long"},{"name":"ship","type":["null","com.acme.Address"]}]}`
	cols, err := Columns(schema, refs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cols {
		got = append(got, c.Name+" "+c.Type.String())
	}
	if want := "ID BIGINT, SHIP STRUCT<`CITY` STRING, `GEO` STRUCT<`LAT` DOUBLE>>"; strings.Join(got, ", ") != want {
		t.Fatalf("columns %s, want %s", strings.Join(got, ", "), want)
	}
	enc, err := NewEncoder(schema, refs, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	geo := &types.StructValue{Type: cols[1].Type.Fields[1].Type, Values: []any{1.5}}
	row := []any{int64(9), &types.StructValue{Type: cols[1].Type, Values: []any{"Oslo", geo}}}
	b, err := enc.Encode(nil, row)
	if err != nil {
		t.Fatal(err)
	}
	cache := &hamba.SchemaCache{}
	for _, name := range []string{"com.acme.Geo", "com.acme.Address"} {
		if _, err := hamba.ParseWithCache(refs[name], "", cache); err != nil {
			t.Fatal(err)
		}
	}
	hs, err := hamba.ParseWithCache(schema, "", cache)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	if err := hamba.Unmarshal(hs, b, &generic); err != nil {
		t.Fatalf("hamba cannot read our bytes: %v", err)
	}
	if generic["id"] != int64(9) {
		t.Fatalf("hamba read %#v", generic)
	}
	dec, err := NewDecoder(schema, refs, cols, Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]any, 2)
	if err := dec.Decode(b, out); err != nil {
		t.Fatal(err)
	}
	if !sameValue(out, row) {
		t.Fatalf("decoded %#v, want %#v", out, row)
	}
	if _, err := Columns(schema, Refs{"x": `{"type":"record","name":"X","fields":[{"name":"a","type":"Nope"}]}`}, Options{}); err == nil || !strings.Contains(err.Error(), `reference "x"`) {
		t.Fatalf("a broken reference: %v", err)
	}
}
