package qtt

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/format"
)

// oneSchema is a registry whose every subject's latest schema is text.
type oneSchema struct{ text string }

func (r oneSchema) SchemaByID(context.Context, int) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, format.ErrSchemaNotFound
}
func (r oneSchema) Latest(context.Context, string) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{Schema: format.Schema{Text: r.text}}, nil
}
func (r oneSchema) Register(context.Context, string, format.Schema) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, nil
}
func (r oneSchema) DeleteSubject(context.Context, string, bool) error { return nil }

// TestCheckRegisteredSchema: post.topics schemas compare as parsed JSON
// (key order free) or as protobuf text with white space normalized.
func TestCheckRegisteredSchema(t *testing.T) {
	for _, tc := range []struct {
		format, registered, want string
		ok                       bool
	}{
		{format.Avro, `{"type":"record","name":"R","fields":[]}`, `{"name": "R", "type": "record", "fields": []}`, true},
		{format.Avro, `{"type":"record","name":"R","fields":[]}`, `{"name": "S", "type": "record", "fields": []}`, false},
		{format.Protobuf, "syntax = \"proto3\";\n\nmessage M {\n  int32 A = 1;\n}\n", `"syntax = \"proto3\";\nmessage M { int32 A = 1; }"`, true},
		{format.Protobuf, "syntax = \"proto3\";\n\nmessage M {\n  int32 A = 1;\n}\n", `"syntax = \"proto3\";\nmessage M { int64 A = 1; }"`, false},
		{format.JSON, `{"type":"string"}`, `{"type":"integer"}`, true}, // not a registry format: not checked
	} {
		spec := format.Spec{Name: tc.format, Registry: oneSchema{tc.registered}, Subject: "t-value"}
		why := checkRegisteredSchema("value", json.RawMessage(tc.want), spec)
		if (why == "") != tc.ok || !tc.ok && !strings.Contains(why, "value schema: expected") {
			t.Errorf("%s %s vs %s: %q, want ok=%v", tc.format, tc.registered, tc.want, why, tc.ok)
		}
	}
}

// subjects is a registry holding the latest schema of some subjects.
type subjects map[string]format.RegisteredSchema

func (r subjects) SchemaByID(context.Context, int) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, format.ErrSchemaNotFound
}
func (r subjects) Latest(_ context.Context, s string) (format.RegisteredSchema, error) {
	if rs, ok := r[s]; ok {
		return rs, nil
	}
	return format.RegisteredSchema{}, format.ErrSchemaNotFound
}
func (r subjects) Register(context.Context, string, format.Schema) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, nil
}
func (r subjects) DeleteSubject(context.Context, string, bool) error { return nil }

// TestCheckInternalTopic: an internal topic's formats are checked by the
// subjects its serializers registered, its schema as a sink's.
func TestCheckInternalTopic(t *testing.T) {
	intKey := format.RegisteredSchema{Schema: format.Schema{Type: format.JSONSchema, Text: `{"type":"integer","connect.type":"int32"}`}}
	reg := subjects{"app-Join-repartition-key": intKey}
	for _, tc := range []struct{ spec, want string }{
		{`{"name": "app-Join-repartition", "keyFormat": {"format": "JSON_SR"}, "valueFormat": {"format": "JSON"}}`, ""},
		{`{"name": "app-Join-repartition", "keyFormat": {"format": "JSON_SR"}, "keySchema": {"connect.type": "int32", "type": "integer"}}`, ""},
		{`{"name": "app-Join-repartition", "keyFormat": {"format": "JSON_SR"}, "keySchema": {"type": "string"}}`,
			`key schema: expected {"type":"string"}, registered {"type":"integer","connect.type":"int32"}`},
		{`{"name": "app-Join-repartition", "keyFormat": {"format": "AVRO"}}`, "key format: expected AVRO, but app-Join-repartition-key has a JSON schema"},
		{`{"name": "app-Join-repartition", "keyFormat": {"format": "KAFKA"}}`, "key format: expected KAFKA, but app-Join-repartition-key has a JSON schema"},
		{`{"name": "app-Join-repartition", "valueFormat": {"format": "AVRO"}}`, "value format: expected AVRO, but no schema is registered under app-Join-repartition-value"},
	} {
		var want TopicSpec
		if err := json.Unmarshal([]byte(tc.spec), &want); err != nil {
			t.Fatal(err)
		}
		if got := checkInternalTopic(want, reg); got != tc.want {
			t.Errorf("%s\n got: %s\nwant: %s", tc.spec, got, tc.want)
		}
	}
	if got := checkInternalTopic(TopicSpec{Name: "x", KeyFormat: &FormatSpec{Format: "AVRO"}}, nil); got != "" {
		t.Errorf("without a registry nothing is checked, got %q", got)
	}
}
