package schemaregistry

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
)

// TestReferences: Avro named types, protobuf imports and JSON Schema $refs
// resolve through references; a referenced version is listed by
// referencedby and cannot be deleted while referenced.
func TestReferences(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	mustCreate(t, s, "inner", avroSchema(`{"type":"record","name":"Inner","namespace":"n","fields":[{"name":"x","type":"int"}]}`))
	outer := mustCreate(t, s, "outer", sr.Schema{
		Schema:     `{"type":"record","name":"Outer","fields":[{"name":"i","type":"n.Inner"}]}`,
		References: []sr.SchemaReference{{Name: "n.Inner", Subject: "inner", Version: 1}},
	})
	mustCreate(t, s, "dep.proto", sr.Schema{Schema: `syntax = "proto3"; package dep; message D { int32 x = 1; }`, Type: sr.TypeProtobuf})
	proto := mustCreate(t, s, "uses-dep", sr.Schema{
		Schema:     `syntax = "proto3"; import "dep.proto"; import "confluent/type/decimal.proto"; message M { dep.D d = 1; confluent.type.Decimal amount = 2; }`,
		Type:       sr.TypeProtobuf,
		References: []sr.SchemaReference{{Name: "dep.proto", Subject: "dep.proto", Version: 1}},
	})
	mustCreate(t, s, "def.json", sr.Schema{Schema: `{"type":"object","properties":{"x":{"type":"integer"}}}`, Type: sr.TypeJSON})
	mustCreate(t, s, "uses-def", sr.Schema{
		Schema:     `{"type":"object","properties":{"d":{"$ref":"def.json"}}}`,
		Type:       sr.TypeJSON,
		References: []sr.SchemaReference{{Name: "def.json", Subject: "def.json", Version: 1}},
	})
	users, err := s.cl.SchemaReferences(ctx, "inner", 1)
	if err != nil || len(users) != 1 || users[0].ID != outer.ID {
		t.Fatalf("referencedby: %+v %v", users, err)
	}
	if got, err := s.cl.SchemaByID(ctx, proto.ID); err != nil || len(got.References) != 1 || got.References[0].Subject != "dep.proto" {
		t.Fatalf("references by id: %+v %v", got, err)
	}
	if _, err := s.cl.DeleteSubject(ctx, "inner", sr.SoftDelete); code(err) != codeReferenceExists {
		t.Fatalf("delete a referenced subject: %v", err)
	}
	if err := s.cl.DeleteSchema(ctx, "dep.proto", 1, sr.SoftDelete); code(err) != codeReferenceExists {
		t.Fatalf("delete a referenced version: %v", err)
	}
}
