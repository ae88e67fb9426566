package driver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sqlstream/sqlstream/qtt"
)

// TestRegistryTopicSchemaFirst: a test topic's schema gets the first id,
// the schemas it references the next ones (ksqlDB's harness: a test's
// VALUE_SCHEMA_ID=1 names the topic's schema, not its import).
func TestRegistryTopicSchemaFirst(t *testing.T) {
	r := newRegistry()
	topics := []qtt.Topic{{Name: "input", ValueFormat: "PROTOBUF",
		ValueSchema: json.RawMessage(`"syntax = \"proto3\";\nimport \"event.proto\";\nmessage Logistics { Event event = 1; }"`),
		ValueRefs: []qtt.SchemaReferenceSpec{{Name: "event.proto", Format: "PROTOBUF",
			Schema: json.RawMessage(`"syntax = \"proto3\";\nmessage Event { int64 timestamp = 1; }"`)}}}}
	if err := r.registerTopics(topics); err != nil {
		t.Fatal(err)
	}
	first, err := r.SchemaByID(context.Background(), 1)
	if err != nil || first.Subject != "input-value" || len(first.References) != 1 {
		t.Fatalf("id 1 is %+v (%v), want input-value's schema with its reference", first, err)
	}
	ref, err := r.Latest(context.Background(), "event.proto")
	if err != nil || ref.ID != 2 {
		t.Fatalf("event.proto is %+v (%v), want id 2", ref, err)
	}
}
