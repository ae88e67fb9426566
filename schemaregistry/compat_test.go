package schemaregistry

import (
	"context"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
)

// compatCase registers old under the level, then checks new: want is ""
// for compatible, else a rule name the refusal must carry.
type compatCase struct {
	name  string
	typ   string
	level string
	old   []string
	new   string
	want  string
}

// The cases follow Confluent's documented rules: the Avro table of
// "Schema Evolution and Compatibility" (add/delete fields with and
// without defaults, promotions, transitive levels), its protobuf
// difference types and its JSON Schema content-model rules.
var compatCases = []compatCase{
	{"avro backward: delete a field", typeAvro, "BACKWARD", []string{avroV2}, avroV1, ""},
	{"avro backward: add a field with a default", typeAvro, "BACKWARD", []string{avroV1}, avroV2, ""},
	{"avro backward: add a field without a default", typeAvro, "BACKWARD", []string{avroV1}, avroNoDefault, "BACKWARD"},
	{"avro forward: add a field without a default", typeAvro, "FORWARD", []string{avroV1}, avroNoDefault, ""},
	{"avro forward: delete a field without a default", typeAvro, "FORWARD", []string{avroNoDefault}, avroV1, "FORWARD"},
	{"avro forward: delete a field with a default", typeAvro, "FORWARD", []string{avroV2}, avroV1, ""},
	{"avro full: add a field with a default", typeAvro, "FULL", []string{avroV1}, avroV2, ""},
	{"avro full: add a field without a default", typeAvro, "FULL", []string{avroV1}, avroNoDefault, "FULL"},
	{"avro backward: promote int to long", typeAvro, "BACKWARD", []string{`"int"`}, `"long"`, ""},
	{"avro forward: promote int to long", typeAvro, "FORWARD", []string{`"int"`}, `"long"`, "FORWARD"},
	{"avro backward: only the latest", typeAvro, "BACKWARD", []string{avroV1, avroV2}, avroV2NoDefault, ""},
	{"avro backward transitive: every version", typeAvro, "BACKWARD_TRANSITIVE", []string{avroV1, avroV2}, avroV2NoDefault, "BACKWARD"},
	{"avro full transitive: every version", typeAvro, "FULL_TRANSITIVE", []string{avroV1, avroV2}, avroV2NoDefault, "FULL"},
	{"avro none", typeAvro, "NONE", []string{avroV1}, `"string"`, ""},

	{"proto backward: add a field", typeProtobuf, "BACKWARD", []string{protoV1}, protoAdd, ""},
	{"proto backward: remove a field", typeProtobuf, "BACKWARD", []string{protoAdd}, protoV1, ""},
	{"proto full: rename a field", typeProtobuf, "FULL", []string{protoV1}, strings.Replace(protoV1, "int32 a", "int32 renamed", 1), ""},
	{"proto full: int32 to int64", typeProtobuf, "FULL", []string{protoV1}, strings.Replace(protoV1, "int32 a", "int64 a", 1), ""},
	{"proto backward: int32 to string", typeProtobuf, "BACKWARD", []string{protoV1}, strings.Replace(protoV1, "int32 a", "string a", 1), "FIELD_SCALAR_KIND_CHANGED"},
	{"proto backward: scalar to message", typeProtobuf, "BACKWARD", []string{protoV1}, strings.Replace(protoV1, "int32 a", "Other a", 1), "FIELD_KIND_CHANGED"},
	{"proto backward: another message type", typeProtobuf, "BACKWARD", []string{protoRef}, strings.Replace(protoRef, "Other o", "Third o", 1), "FIELD_NAMED_TYPE_CHANGED"},
	{"proto backward: a message removed", typeProtobuf, "BACKWARD", []string{protoV1}, `syntax = "proto3"; package p; message M { int32 a = 1; string s = 2; }`, "MESSAGE_REMOVED"},
	{"proto backward: a message added", typeProtobuf, "BACKWARD", []string{protoV1}, protoV1 + " message Extra { int32 x = 1; }", ""},
	{"proto forward: a message added", typeProtobuf, "FORWARD", []string{protoV1}, protoV1 + " message Extra { int32 x = 1; }", "MESSAGE_REMOVED"},
	{"proto backward: package changed", typeProtobuf, "BACKWARD", []string{protoV1}, strings.Replace(protoV1, "package p;", "package q;", 1), "PACKAGE_CHANGED"},
	{"proto backward: repeated", typeProtobuf, "BACKWARD", []string{protoV1}, strings.Replace(protoV1, "string s", "repeated string s", 1), "FIELD_LABEL_CHANGED"},
	{"proto backward: into an existing oneof", typeProtobuf, "BACKWARD", []string{protoOneof}, `syntax = "proto3"; package p; message M { oneof o { int32 a = 1; string s = 2; } }`, "FIELD_MOVED_TO_EXISTING_ONEOF"},
	{"proto backward: two fields into a new oneof", typeProtobuf, "BACKWARD", []string{protoV1}, `syntax = "proto3"; package p; message M { oneof o { int32 a = 1; string s = 2; } } message Other { int32 x = 1; }`, "MULTIPLE_FIELDS_MOVED_TO_ONEOF"},

	{"json backward: property added to an open model", typeJSON, "BACKWARD", []string{jsonOpen}, jsonOpenAdded, "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"},
	{"json backward: property removed from an open model", typeJSON, "BACKWARD", []string{jsonOpenAdded}, jsonOpen, ""},
	{"json backward: optional property added to a closed model", typeJSON, "BACKWARD", []string{jsonClosed}, jsonClosedAdded, ""},
	{"json forward: property removed from a closed model", typeJSON, "FORWARD", []string{jsonClosed}, jsonClosedAdded, "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL"},
	{"json backward: required property added", typeJSON, "BACKWARD", []string{jsonClosed}, strings.Replace(jsonClosedAdded, `"required":["a"]`, `"required":["a","b"]`, 1), "REQUIRED_ATTRIBUTE_ADDED"},
	{"json backward: integer to number", typeJSON, "BACKWARD", []string{jsonKsql("integer")}, jsonKsql("number"), ""},
	{"json backward: number to integer", typeJSON, "BACKWARD", []string{jsonKsql("number")}, jsonKsql("integer"), "COMBINED_TYPE_SUBSCHEMAS_CHANGED"},
	{"json backward: enum narrowed", typeJSON, "BACKWARD", []string{`{"enum":["x","y"]}`}, `{"enum":["x"]}`, "ENUM_ARRAY_NARROWED"},
	{"json backward: maxLength decreased", typeJSON, "BACKWARD", []string{`{"type":"string","maxLength":10}`}, `{"type":"string","maxLength":5}`, "MAXLENGTH_DECREASED"},
	{"json backward: content model closed", typeJSON, "BACKWARD", []string{jsonOpen}, jsonClosed, "ADDITIONAL_PROPERTIES_REMOVED"},
}

const (
	// avroV2NoDefault is avroV2 with b's default dropped: it reads
	// avroV2's data, not avroV1's.
	avroV2NoDefault = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]}`

	protoV1    = `syntax = "proto3"; package p; message M { int32 a = 1; string s = 2; } message Other { int32 x = 1; }`
	protoAdd   = `syntax = "proto3"; package p; message M { int32 a = 1; string s = 2; int64 n = 3; } message Other { int32 x = 1; }`
	protoRef   = `syntax = "proto3"; package p; message M { Other o = 1; } message Other { int32 x = 1; } message Third { int32 x = 1; }`
	protoOneof = `syntax = "proto3"; package p; message M { string s = 2; oneof o { int32 a = 1; } }`

	jsonOpen        = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`
	jsonOpenAdded   = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"]}`
	jsonClosed      = `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`
	jsonClosedAdded = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`
)

// jsonKsql is a JSON_SR schema as ksqlDB writes one: a nullable column.
func jsonKsql(t string) string {
	return `{"type":"object","properties":{"I":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"` + t + `"}]}}}`
}

func TestCompatibilityLevels(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	for i, c := range compatCases {
		t.Run(c.name, func(t *testing.T) {
			subject := "compat-" + string(rune('a'+i/26)) + string(rune('a'+i%26))
			if r := s.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}, subject)[0]; r.Err != nil {
				t.Fatal(r.Err)
			}
			for _, old := range c.old {
				if _, err := s.cl.CreateSchema(ctx, subject, sr.Schema{Schema: old, Type: srType(c.typ)}); err != nil {
					t.Fatalf("old version: %v", err)
				}
			}
			if r := s.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: levelOf(c.level)}, subject)[0]; r.Err != nil {
				t.Fatal(r.Err)
			}
			res, err := s.cl.CheckCompatibility(sr.WithParams(ctx, sr.Verbose), subject, -1, sr.Schema{Schema: c.new, Type: srType(c.typ)})
			if err != nil {
				t.Fatal(err)
			}
			_, rerr := s.cl.CreateSchema(ctx, subject, sr.Schema{Schema: c.new, Type: srType(c.typ)})
			if c.want == "" {
				if rerr != nil {
					t.Fatalf("want compatible, register said %v", rerr)
				}
				return
			}
			if code(rerr) != codeIncompatible || !strings.Contains(rerr.Error(), c.want) || !strings.Contains(rerr.Error(), subject) {
				t.Fatalf("want a 409 naming %s and the subject, got %v", c.want, rerr)
			}
			if !strings.HasSuffix(c.level, "_TRANSITIVE") && (res.Is || !strings.Contains(strings.Join(res.Messages, " "), c.want)) {
				t.Fatalf("compatibility against the latest: %+v", res)
			}
		})
	}
}

func levelOf(l string) sr.CompatibilityLevel {
	var c sr.CompatibilityLevel
	if err := c.UnmarshalText([]byte(l)); err != nil {
		panic(err)
	}
	return c
}

func srType(t string) sr.SchemaType {
	switch t {
	case typeProtobuf:
		return sr.TypeProtobuf
	case typeJSON:
		return sr.TypeJSON
	}
	return sr.TypeAvro
}
