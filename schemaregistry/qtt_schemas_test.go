package schemaregistry

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
)

// qttDirs hold ksqlDB's query translation tests and REST ones (the shared
// conformance data beside the project root); they are read, never copied.
var qttDirs = []string{"../../shared/conformance/ksql-qtt", "../../shared/conformance/ksql-rqtt"}

// TestQTTSchemasRegister registers every schema ksqlDB's QTT files carry
// (input topics' schemas and the sink schemas ksqlDB itself registers,
// with their references): each is a schema ksqlDB or Confluent's
// serializers put in a registry, so each must be accepted, and the
// registry must serve each back as it was given.
func TestQTTSchemasRegister(t *testing.T) {
	var files []string
	for _, dir := range qttDirs {
		found, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		files = append(files, found...)
	}
	if len(files) == 0 {
		t.Skipf("no QTT files under %v", qttDirs)
	}
	ctx := context.Background()
	s := newRig(t).start("")
	count := 0
	for _, f := range files {
		for i, tp := range qttTopics(t, f) {
			for _, side := range []string{"key", "value"} {
				sch, ok := tp.schema(side)
				if !ok {
					continue
				}
				subject := fmt.Sprintf("%s/%d/%s-%s", filepath.Base(f), i, tp.Name, side)
				sch.References = registerRefs(t, s, subject, tp.refs(side))
				if _, err := s.cl.CreateSchema(ctx, subject, sch); err != nil {
					t.Errorf("%s: %v\n%s", subject, err, sch.Schema)
					continue
				}
				got, err := s.cl.SchemaByVersion(ctx, subject, 1)
				if err != nil || (sch.Type == sr.TypeProtobuf && got.Schema.Schema != sch.Schema) {
					t.Errorf("%s served back: %q %v", subject, got.Schema.Schema, err)
				}
				count++
			}
		}
	}
	if count < 150 {
		t.Fatalf("registered only %d schemas from %d files", count, len(files))
	}
	t.Logf("registered %d schemas from ksqlDB's QTT files", count)
}

// qttTopic is a topic entry of a QTT test, inputs or post.topics.
type qttTopic struct {
	Name                  string          `json:"name"`
	KeyFormat             json.RawMessage `json:"keyFormat"`
	ValueFormat           json.RawMessage `json:"valueFormat"`
	KeySchema             json.RawMessage `json:"keySchema"`
	ValueSchema           json.RawMessage `json:"valueSchema"`
	KeySchemaReferences   []qttRef        `json:"keySchemaReferences"`
	ValueSchemaReferences []qttRef        `json:"valueSchemaReferences"`
}

type qttRef struct {
	Name   string          `json:"name"`
	Format string          `json:"format"`
	Schema json.RawMessage `json:"schema"`
}

func qttTopics(t *testing.T, path string) []qttTopic {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Tests []struct {
			Topics []qttTopic `json:"topics"`
			Post   struct {
				Topics struct {
					Topics []qttTopic `json:"topics"`
				} `json:"topics"`
			} `json:"post"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(stripComments(raw), &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []qttTopic
	for _, tc := range file.Tests {
		out = append(append(out, tc.Topics...), tc.Post.Topics.Topics...)
	}
	return out
}

// schema is the side's schema as a registration, if it has one in an SR
// format.
func (tp qttTopic) schema(side string) (sr.Schema, bool) {
	format, text := tp.KeyFormat, tp.KeySchema
	if side == "value" {
		format, text = tp.ValueFormat, tp.ValueSchema
	}
	if len(text) == 0 || string(text) == "null" {
		return sr.Schema{}, false
	}
	typ, ok := qttSchemaType(format)
	return sr.Schema{Schema: schemaText(text), Type: typ}, ok
}

func (tp qttTopic) refs(side string) []qttRef {
	if side == "key" {
		return tp.KeySchemaReferences
	}
	return tp.ValueSchemaReferences
}

// qttSchemaType reads a format: "AVRO", or {"format": "AVRO", …}.
func qttSchemaType(raw json.RawMessage) (sr.SchemaType, bool) {
	var name string
	if json.Unmarshal(raw, &name) != nil {
		var obj struct {
			Format string `json:"format"`
		}
		_ = json.Unmarshal(raw, &obj)
		name = obj.Format
	}
	switch strings.ToUpper(name) {
	case "AVRO":
		return sr.TypeAvro, true
	case "PROTOBUF":
		return sr.TypeProtobuf, true
	case "JSON_SR":
		return sr.TypeJSON, true
	}
	return 0, false
}

// schemaText is a schema as QTT writes it: protobuf text as a JSON
// string, Avro and JSON Schema as JSON.
func schemaText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// registerRefs registers a QTT test's referenced schemas (name, format,
// schema; no subject) under subjects of their own.
func registerRefs(t *testing.T, s *server, subject string, refs []qttRef) []sr.SchemaReference {
	var out []sr.SchemaReference
	for _, r := range refs {
		typ, ok := qttSchemaType(json.RawMessage(`"` + r.Format + `"`))
		if !ok {
			t.Fatalf("%s: reference %s has format %q", subject, r.Name, r.Format)
		}
		got := mustCreate(t, s, subject+"/ref/"+r.Name, sr.Schema{Schema: schemaText(r.Schema), Type: typ})
		out = append(out, sr.SchemaReference{Name: r.Name, Subject: got.Subject, Version: got.Version})
	}
	return out
}

// stripComments blanks out // and /* */ comments outside JSON strings
// (QTT files carry them).
func stripComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			out = append(out, c)
			if c == '\\' && i+1 < len(b) {
				i++
				out = append(out, b[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
			out = append(out, '\n')
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(string(b[i+2:]), "*/")
			if end < 0 {
				return out
			}
			i += end + 3
		default:
			out = append(out, c)
		}
	}
	return out
}
