package qtt

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/sqlstream/sqlstream/sql/format"
)

// checkRegisteredSchema compares a post.topics key or value schema with
// the latest schema the engine's registry holds for the sink's side: Avro
// and JSON schemas as parsed JSON (what ksqlDB's canonical strings
// compare), protobuf schemas as text with white space normalized.
func checkRegisteredSchema(side string, want json.RawMessage, spec format.Spec) string {
	if len(want) == 0 || string(want) == "null" || !spec.UsesRegistry() || spec.Registry == nil {
		return ""
	}
	got, err := spec.Registry.Latest(context.Background(), spec.Subject)
	if err != nil {
		return fmt.Sprintf("%s schema: %v", side, err)
	}
	var text string
	if json.Unmarshal(want, &text) == nil {
		if normalizeProto(text) != normalizeProto(got.Text) {
			return fmt.Sprintf("%s schema: expected %q, registered %q", side, text, got.Text)
		}
		return ""
	}
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return fmt.Sprintf("%s schema in the test: %v", side, err)
	}
	if err := json.Unmarshal([]byte(got.Text), &g); err != nil || !reflect.DeepEqual(w, g) {
		return fmt.Sprintf("%s schema: expected %s, registered %s", side, compactOr(want), got.Text)
	}
	return ""
}

func normalizeProto(s string) string { return strings.Join(strings.Fields(s), " ") }

func compactOr(b json.RawMessage) string {
	if c, err := compactText(b); err == nil {
		return string(c)
	}
	return string(b)
}

// checkInternalTopic checks the formats of a topic no source reads (a
// repartition or changelog topic) by the subjects its serializers
// registered, as ksqlDB's test runner reads them: a registry format must
// have registered <topic>-key / -value with a schema of its type (and the
// test's schema, when it gives one); any other format must not have.
// Without a registry there is nothing to check.
func checkInternalTopic(want TopicSpec, reg format.SchemaRegistry) string {
	if reg == nil {
		return ""
	}
	if why := checkInternalSide("key", want.KeyFormat, want.KeySchema, format.KeySubject(want.Name), reg); why != "" {
		return why
	}
	return checkInternalSide("value", want.ValueFormat, want.ValueSchema, format.ValueSubject(want.Name), reg)
}

func checkInternalSide(side string, f *FormatSpec, schema json.RawMessage, subject string, reg format.SchemaRegistry) string {
	if f == nil || f.Format == "" {
		return ""
	}
	name := strings.ToUpper(f.Format)
	got, err := reg.Latest(context.Background(), subject)
	wantType, registry := format.SchemaTypeOf(name)
	switch {
	case err != nil && !errors.Is(err, format.ErrSchemaNotFound):
		return fmt.Sprintf("%s format: subject %s: %v", side, subject, err)
	case !registry && err == nil:
		return fmt.Sprintf("%s format: expected %s, but %s has a %s schema", side, name, subject, got.Type)
	case !registry:
		return ""
	case err != nil:
		return fmt.Sprintf("%s format: expected %s, but no schema is registered under %s", side, name, subject)
	case got.Type != wantType:
		return fmt.Sprintf("%s format: expected %s, but %s has a %s schema", side, name, subject, got.Type)
	}
	return checkRegisteredSchema(side, schema, format.Spec{Name: name, Subject: subject, Registry: reg})
}

// registryOf is the engine's registry, as its sources' specs carry it.
func registryOf(sources []SourceInfo) format.SchemaRegistry {
	for _, s := range sources {
		for _, spec := range []format.Spec{s.KeyFormat, s.ValueFormat} {
			if spec.Registry != nil {
				return spec.Registry
			}
		}
	}
	return nil
}
