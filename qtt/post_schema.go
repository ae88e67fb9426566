package qtt

import (
	"context"
	"encoding/json"
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
