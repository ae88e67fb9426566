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
