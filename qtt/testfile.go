package qtt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// File is one parsed QTT file: {"tests": [...]}.
type File struct {
	Path  string // display name: relative to the folder given, or the base name
	Tests []Test
}

// Test is one entry of a QTT file's "tests" array, before expansion into
// variants. Unknown fields (comments, issues, versions…) are ignored.
type Test struct {
	Name              string             `json:"name"`
	Statements        []string           `json:"statements"`
	Inputs            []RecordSpec       `json:"inputs"`
	Outputs           []RecordSpec       `json:"outputs"`
	Properties        map[string]any     `json:"properties"`
	Format            []string           `json:"format"`
	Config            []string           `json:"config"`
	ExpectedException *ExpectedException `json:"expectedException"`
	Post              *Post              `json:"post"`
	Topics            []TopicSpec        `json:"topics"`
	Enabled           *bool              `json:"enabled"`
}

// RecordSpec is an input or expected output record. Key and Value are
// JSON-ish values (nil, bool, json.Number, string, []any, map[string]any:
// files are decoded with UseNumber, so numbers keep their text);
// a nil Value is a tombstone. On outputs, Timestamp and Window are checked
// when given, Headers always.
type RecordSpec struct {
	Topic     string       `json:"topic"`
	Key       any          `json:"key"`
	Value     any          `json:"value"`
	Timestamp *int64       `json:"timestamp"`
	Window    *WindowSpec  `json:"window"`
	Headers   []HeaderSpec `json:"headers"` // none given: none expected
	// ValueText is Value's JSON text as the file gives it, object keys in
	// document order (Value's maps lose it); empty for a null value or a
	// record built in code.
	ValueText json.RawMessage `json:"-"`
}

// valueText captures a record's value as JSON text.
type valueText struct {
	Value json.RawMessage `json:"value"`
}

// keepValueTexts sets each record's ValueText from texts, the same records
// decoded again as text (a JSON null stays empty).
func keepValueTexts(records []RecordSpec, texts []valueText) {
	for i := range min(len(records), len(texts)) {
		if t := texts[i].Value; len(t) > 0 && string(t) != "null" {
			records[i].ValueText = t
		}
	}
}

// WindowSpec is a record's window: type "time" (tumbling, hopping) or
// "session".
type WindowSpec struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Type  string `json:"type"`
}

// HeaderSpec is one record header; Value is base64 (nil: a null value).
type HeaderSpec struct {
	Key   string  `json:"KEY"`
	Value *string `json:"VALUE"`
}

// ExpectedException marks a negative test. Only its presence matters: the
// wording of ksqlDB's messages need not match.
type ExpectedException struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Post holds the checks made after the records ran.
type Post struct {
	Sources []SourceSpec    `json:"sources"`
	Topics  *PostTopicsSpec `json:"topics"`
}

// SourceSpec is an expected catalog entry: name, "stream"/"table", the
// schema as ksqlDB prints it ("K INT KEY, V BIGINT"), and formats.
type SourceSpec struct {
	Name        string      `json:"name"`
	Type        string      `json:"type"`
	Schema      *string     `json:"schema"`
	KeyFormat   *FormatSpec `json:"keyFormat"`
	ValueFormat *FormatSpec `json:"valueFormat"`
}

// FormatSpec is an expected format: either a bare name ("JSON") or an
// object {"format", "windowType", "windowSize", …}.
type FormatSpec struct {
	Format     string `json:"format"`
	WindowType string `json:"windowType"`
	WindowSize *int64 `json:"windowSize"`
}

// UnmarshalJSON accepts both the string and the object form.
func (f *FormatSpec) UnmarshalJSON(b []byte) error {
	var name string
	if json.Unmarshal(b, &name) == nil {
		*f = FormatSpec{Format: name}
		return nil
	}
	type plain FormatSpec
	return json.Unmarshal(b, (*plain)(f))
}

// PostTopicsSpec: topics matching Blacklist must not exist; Topics must.
type PostTopicsSpec struct {
	Blacklist string      `json:"blacklist"`
	Topics    []TopicSpec `json:"topics"`
}

// TopicSpec is a topic declared by a test (or expected by post.topics).
// Schemas mean the test needs a schema registry.
type TopicSpec struct {
	Name        string          `json:"name"`
	Partitions  *int32          `json:"partitions"`
	KeyFormat   *FormatSpec     `json:"keyFormat"`
	ValueFormat *FormatSpec     `json:"valueFormat"`
	Format      *FormatSpec     `json:"format"`
	KeySchema   json.RawMessage `json:"keySchema"`
	ValueSchema json.RawMessage `json:"valueSchema"`
	Schema      json.RawMessage `json:"schema"`
	// KeySchemaID and ValueSchemaID are the ids the schemas are
	// registered with (nil: the registry's next).
	KeySchemaID   *int `json:"keySchemaId"`
	ValueSchemaID *int `json:"valueSchemaId"`
	// KeySchemaReferences and ValueSchemaReferences are schemas the key
	// or value schema imports, registered before it under their names.
	KeySchemaReferences   []SchemaReferenceSpec `json:"keySchemaReferences"`
	ValueSchemaReferences []SchemaReferenceSpec `json:"valueSchemaReferences"`
}

// SchemaReferenceSpec is one referenced schema of a topic's schema.
type SchemaReferenceSpec struct {
	Name   string          `json:"name"`
	Format string          `json:"format"`
	Schema json.RawMessage `json:"schema"`
}

// NeedsSchemaRegistry reports whether the topic declares registry schemas.
func (t TopicSpec) NeedsSchemaRegistry() bool {
	return len(t.KeySchema) > 0 || len(t.ValueSchema) > 0 || len(t.Schema) > 0
}

// ReadFile reads and parses a QTT file; name is its display name.
func ReadFile(path, name string) (*File, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseFile(name, src)
}

// ParseFile parses QTT JSON (with comments) into a File.
func ParseFile(name string, src []byte) (*File, error) {
	var doc struct {
		Tests []Test `json:"tests"`
	}
	if err := DecodeStrict(name, src, &doc); err != nil {
		return nil, err
	}
	var texts struct {
		Tests []struct {
			Inputs []valueText `json:"inputs"`
		} `json:"tests"`
	}
	if err := json.Unmarshal(StripComments(src), &texts); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i := range min(len(doc.Tests), len(texts.Tests)) {
		keepValueTexts(doc.Tests[i].Inputs, texts.Tests[i].Inputs)
	}
	return &File{Path: name, Tests: doc.Tests}, nil
}

// DecodeStrict strips comments and decodes src into v keeping numbers as
// json.Number; syntax errors carry the line and column.
func DecodeStrict(name string, src []byte, v any) error {
	clean := StripComments(src)
	dec := json.NewDecoder(bytes.NewReader(clean))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return positionError(name, clean, err)
	}
	return nil
}

func positionError(name string, src []byte, err error) error {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	default:
		return fmt.Errorf("%s: %w", name, err)
	}
	line, col := lineCol(src, int(off))
	return fmt.Errorf("%s:%d:%d: %w", name, line, col, err)
}

// lineCol converts a byte offset into a 1-based line and column.
func lineCol(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	before := src[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - bytes.LastIndexByte(before, '\n')
	return line, col
}

// DecodeJSON decodes raw JSON keeping numbers as json.Number; absent is nil.
func DecodeJSON(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// propertyString renders a test property value as the engine expects it:
// strings as they are, anything else as its JSON text.
func propertyString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}
