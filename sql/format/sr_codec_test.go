package format

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/sql/types"
)

// newFakeRegistry serves franz-go's srfake registry on loopback and
// returns our client of it.
func newFakeRegistry(t testing.TB) (*RegistryClient, *srfake.Registry) {
	t.Helper()
	fake := srfake.New()
	t.Cleanup(fake.Close)
	c, err := NewRegistryClient(RegistryConfig{URLs: []string{fake.URL()}})
	if err != nil {
		t.Fatal(err)
	}
	return c, fake
}

// TestJSONSRRoundTrip: the sink codec registers its schema under the
// subject, writes the wire header with the registry's id, and a franz-go
// sr.Serde (not our decoder) reads the payload back; our decoder reads a
// record sr.Serde wrote.
func TestJSONSRRoundTrip(t *testing.T) {
	reg, fake := newFakeRegistry(t)
	cols := []types.Column{{Name: "ID", Type: types.IntegerType}, {Name: "NAME", Type: types.StringType}}
	spec := Spec{Name: JSONSR, Registry: reg, Subject: ValueSubject("users")}
	c, err := NewValueCodec(spec, cols)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encode(nil, []any{int32(7), "ann"})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := fake.GetSchema("users-value", 1)
	if !ok || got.Type != sr.TypeJSON {
		t.Fatalf("subject users-value not registered as JSON: %+v", got)
	}
	var serde sr.Serde
	type user struct {
		ID   int32
		NAME string
	}
	serde.Register(got.ID, user{}, sr.DecodeFn(json.Unmarshal), sr.EncodeFn(json.Marshal))
	var u user
	if err := serde.Decode(b, &u); err != nil || u != (user{7, "ann"}) {
		t.Fatalf("sr.Serde read %+v, %v from %q", u, err, b)
	}
	in, err := serde.Encode(user{8, "bob"})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]any, 2)
	if err := c.Decode(in, dst); err != nil || dst[0] != int32(8) || dst[1] != "bob" {
		t.Fatalf("decoded %v, %v", dst, err)
	}
}

// TestJSONSRBadBytes: no header, an unknown id and bad JSON are
// DecodeErrors naming the format and the byte offset.
func TestJSONSRBadBytes(t *testing.T) {
	reg, fake := newFakeRegistry(t)
	id, _, err := fake.RegisterSchema("t-value", sr.Schema{Type: sr.TypeJSON, Schema: `{"type":"object"}`})
	if err != nil {
		t.Fatal(err)
	}
	avroID, _, err := fake.RegisterSchema("a-value", sr.Schema{Type: sr.TypeAvro, Schema: `"int"`})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewValueCodec(Spec{Name: JSONSR, Registry: reg}, []types.Column{{Name: "A", Type: types.IntegerType}})
	if err != nil {
		t.Fatal(err)
	}
	var h sr.ConfluentHeader
	withID := func(id int, payload string) []byte {
		b, _ := h.AppendEncode(nil, id, nil)
		return append(b, payload...)
	}
	for name, tc := range map[string]struct {
		data   []byte
		offset int
	}{
		"no header":      {[]byte(`{"A":1}`), 0},
		"truncated":      {[]byte{0, 0, 1}, 0},
		"unknown id":     {withID(999, `{"A":1}`), 1},
		"avro id":        {withID(avroID, `{"A":1}`), 1},
		"bad json":       {withID(id, `{"A":"x"}`), 10},
		"truncated json": {withID(id, `{"A":`), 10},
	} {
		err := c.Decode(tc.data, make([]any, 1))
		var de *DecodeError
		if !errors.As(err, &de) || de.Format != JSONSR || de.Offset != tc.offset {
			t.Errorf("%s: got %v (%+v), want a JSON_SR DecodeError at byte %d", name, err, de, tc.offset)
		}
	}
}

// TestJSONSchemaOfQTT pins the generated JSON Schema against ksqlDB's
// expected sink schemas in its QTT files (post.topics valueSchema).
func TestJSONSchemaOfQTT(t *testing.T) {
	data, err := os.ReadFile("../../../shared/conformance/ksql-qtt/json_sr.json")
	if err != nil {
		t.Skipf("ksqlDB's QTT files are not beside the project: %v", err)
	}
	var file struct {
		Tests []struct {
			Name string
			Post struct {
				Topics struct {
					Topics []struct {
						ValueSchema json.RawMessage
						KeySchema   json.RawMessage
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	want := map[string][]types.Column{
		"STRUCT - key - inference": {{Name: "FOO", Type: types.IntegerType}},
	}
	key := types.StructOf(types.Field{Name: "F1", Type: types.StringType})
	checked := 0
	for _, tc := range file.Tests {
		cols, ok := want[tc.Name]
		if !ok {
			continue
		}
		for _, tp := range tc.Post.Topics.Topics {
			sameJSON(t, tc.Name+" value", JSONSchemaOf(cols, false), tp.ValueSchema)
			sameJSON(t, tc.Name+" key", JSONSchemaOf([]types.Column{{Name: "K", Type: key}}, true), tp.KeySchema)
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no expected schema found in json_sr.json")
	}
}

func sameJSON(t *testing.T, what, got string, want json.RawMessage) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: generated schema is not JSON: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// TestJSONSchemaInferRoundTrip: every SQL type survives schema
// generation and inference, in column order; names are upper-cased
// unless KeepCase.
func TestJSONSchemaInferRoundTrip(t *testing.T) {
	cols := []types.Column{
		{Name: "B", Type: types.BooleanType}, {Name: "I", Type: types.IntegerType},
		{Name: "L", Type: types.BigintType}, {Name: "D", Type: types.DoubleType},
		{Name: "DEC", Type: types.DecimalOf(4, 2)}, {Name: "S", Type: types.StringType},
		{Name: "BY", Type: types.BytesType}, {Name: "TS", Type: types.TimestampType},
		{Name: "DT", Type: types.DateType}, {Name: "TM", Type: types.TimeType},
		{Name: "A", Type: types.ArrayOf(types.StringType)}, {Name: "M", Type: types.MapOf(types.StringType, types.BigintType)},
		{Name: "ST", Type: types.StructOf(types.Field{Name: "X", Type: types.IntegerType})},
	}
	rs := RegisteredSchema{Schema: Schema{Type: JSONSchema, Text: JSONSchemaOf(cols, false)}}
	got, err := InferColumns(JSONSR, rs, InferOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cols) {
		t.Fatalf("got %d columns, want %d: %v", len(got), len(cols), got)
	}
	for i := range cols {
		if got[i].Name != cols[i].Name || !got[i].Type.Equal(cols[i].Type) {
			t.Errorf("column %d: got %s %s, want %s %s", i, got[i].Name, got[i].Type, cols[i].Name, cols[i].Type)
		}
	}
	lower := RegisteredSchema{Schema: Schema{Type: JSONSchema, Text: `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"null"},"c":{"type":"integer"}}}`}}
	for _, keep := range []bool{false, true} {
		got, err := InferColumns(JSONSR, lower, InferOptions{KeepCase: keep})
		want := []string{"B", "C"}
		if keep {
			want = []string{"b", "c"}
		}
		if err != nil || len(got) != 2 || got[0].Name != want[0] || got[1].Name != want[1] || got[1].Type != types.BigintType {
			t.Errorf("keepCase %v: got %v, %v; want %v (the null-typed property dropped)", keep, got, err, want)
		}
	}
	key, err := InferColumns(JSONSR, RegisteredSchema{Schema: Schema{Text: `{"oneOf":[{"type":"null"},{"type":"integer","connect.type":"int32"}]}`}}, InferOptions{Key: true})
	if err != nil || len(key) != 1 || key[0].Name != "ROWKEY" || key[0].Type != types.IntegerType {
		t.Errorf("key inference: %v, %v", key, err)
	}
}

// TestRegistryClientNotFound: a missing subject or id wraps
// ErrSchemaNotFound; deleting a missing subject is not an error.
func TestRegistryClientNotFound(t *testing.T) {
	reg, _ := newFakeRegistry(t)
	ctx := context.Background()
	if _, err := reg.Latest(ctx, "nope-value"); !errors.Is(err, ErrSchemaNotFound) {
		t.Errorf("Latest: %v", err)
	}
	if _, err := reg.SchemaByID(ctx, 42); !errors.Is(err, ErrSchemaNotFound) {
		t.Errorf("SchemaByID: %v", err)
	}
	if err := reg.DeleteSubject(ctx, "nope-value", true); err != nil {
		t.Errorf("DeleteSubject: %v", err)
	}
	rs, err := reg.Register(ctx, "s-value", Schema{Type: JSONSchema, Text: `{"type":"string"}`})
	if err != nil || rs.ID == 0 {
		t.Fatalf("Register: %+v, %v", rs, err)
	}
	if err := reg.DeleteSubject(ctx, "s-value", true); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Latest(ctx, "s-value"); !errors.Is(err, ErrSchemaNotFound) {
		t.Errorf("Latest after delete: %v", err)
	}
}

// TestProtobufHostileIndexCount: a wire header claiming 2^45 message
// indexes (or more than the bytes left could hold) is a DecodeError at
// the index path, not an allocation of that size (a fatal out of memory
// that no recover catches).
func TestProtobufHostileIndexCount(t *testing.T) {
	reg, fake := newFakeRegistry(t)
	id, _, err := fake.RegisterSchema("p-value", sr.Schema{Type: sr.TypeProtobuf,
		Schema: "syntax = \"proto3\";\n\nmessage M {\n  int32 A = 1;\n}\n"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewValueCodec(Spec{Name: Protobuf, Registry: reg}, []types.Column{{Name: "A", Type: types.IntegerType}})
	if err != nil {
		t.Fatal(err)
	}
	var h sr.ConfluentHeader
	head, _ := h.AppendEncode(nil, id, nil)
	for name, path := range map[string][]byte{
		"2^45 indexes":         binary.AppendVarint(nil, 1<<45),
		"3 indexes in 2 bytes": append(binary.AppendVarint(nil, 3), 2, 2),
	} {
		err := c.Decode(append(append([]byte(nil), head...), path...), make([]any, 1))
		var de *DecodeError
		if !errors.As(err, &de) || de.Offset != 5 {
			t.Errorf("%s: got %v, want a DecodeError at byte 5", name, err)
		}
	}
}
