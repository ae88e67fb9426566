package format

import (
	"context"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestProtobufReferences: a schema importing another registered one
// (a schema reference) infers its columns and round-trips records; the
// referenced text is found by subject and version through srfake.
func TestProtobufReferences(t *testing.T) {
	reg, fake := newFakeRegistry(t)
	if _, _, err := fake.RegisterSchema("event.proto", sr.Schema{Type: sr.TypeProtobuf,
		Schema: "syntax = \"proto3\";\n\nmessage Event {\n  int64 TS = 1;\n}\n"}); err != nil {
		t.Fatal(err)
	}
	id, _, err := fake.RegisterSchema("logistics-value", sr.Schema{Type: sr.TypeProtobuf,
		Schema:     "syntax = \"proto3\";\n\nimport \"event.proto\";\n\nmessage Logistics {\n  Event EVENT = 1;\n}\n",
		References: []sr.SchemaReference{{Name: "event.proto", Subject: "event.proto", Version: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rs, err := reg.SchemaByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := ResolveReferences(ctx, reg, rs.Schema)
	if err != nil || len(refs) != 1 {
		t.Fatalf("references: %v, %v", refs, err)
	}
	cols, err := InferColumns(Protobuf, rs, InferOptions{Refs: refs})
	event := types.StructOf(types.Field{Name: "TS", Type: types.BigintType})
	if err != nil || len(cols) != 1 || cols[0].Name != "EVENT" || !cols[0].Type.Equal(event) {
		t.Fatalf("inferred %v, %v", cols, err)
	}
	c, err := NewValueCodec(Spec{Name: Protobuf, Registry: reg, SchemaID: id}, cols)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encode(nil, []any{&types.StructValue{Type: event, Values: []any{int64(1234)}}})
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]any, 1)
	if err := c.Decode(b, dst); err != nil {
		t.Fatal(err)
	}
	if sv, ok := dst[0].(*types.StructValue); !ok || sv.Values[0] != int64(1234) {
		t.Fatalf("decoded %#v", dst[0])
	}
}

// refsDown answers schemas by id but cannot reach the registry for the
// schemas they reference.
type refsDown struct{ SchemaRegistry }

func (refsDown) Latest(context.Context, string) (RegisteredSchema, error) {
	return RegisteredSchema{}, errors.New("dial tcp: connection refused")
}

// TestReferenceOutageIsRetried: a record whose schema's references cannot
// be fetched because the registry does not answer is a
// RegistryUnavailableError (retried by the task), not a DecodeError that
// would skip the record.
func TestReferenceOutageIsRetried(t *testing.T) {
	reg, fake := newFakeRegistry(t)
	if _, _, err := fake.RegisterSchema("event.proto", sr.Schema{Type: sr.TypeProtobuf,
		Schema: "syntax = \"proto3\";\n\nmessage Event {\n  int64 TS = 1;\n}\n"}); err != nil {
		t.Fatal(err)
	}
	id, _, err := fake.RegisterSchema("logistics-value", sr.Schema{Type: sr.TypeProtobuf,
		Schema:     "syntax = \"proto3\";\n\nimport \"event.proto\";\n\nmessage Logistics {\n  Event EVENT = 1;\n}\n",
		References: []sr.SchemaReference{{Name: "event.proto", Subject: "event.proto", Version: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	event := types.StructOf(types.Field{Name: "TS", Type: types.BigintType})
	c, err := NewValueCodec(Spec{Name: Protobuf, Registry: refsDown{reg}}, []types.Column{{Name: "EVENT", Type: event}})
	if err != nil {
		t.Fatal(err)
	}
	var h sr.ConfluentHeader
	record, _ := h.AppendEncode(nil, id, []int{0})
	err = c.Decode(append(record, 0x0a, 0x02, 0x08, 0x01), make([]any, 1))
	var unavailable *RegistryUnavailableError
	if !errors.As(err, &unavailable) {
		t.Fatalf("decode with the references unreachable: %v, want a RegistryUnavailableError", err)
	}
}
