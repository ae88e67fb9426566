package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/sql/format"
)

// registry is the schema registry of one variant, in memory, as ksqlDB's
// test executor gives each test a mock registry: subjects with versions,
// ids counting from 1 (or the ids the test's topics ask for). It checks
// no compatibility (neither does ksqlDB's MockSchemaRegistryClient for
// the schemas its tests register).
type registry struct {
	mu       sync.Mutex
	subjects map[string][]format.RegisteredSchema
	byID     map[int]format.RegisteredSchema
	next     int
}

var _ format.SchemaRegistry = (*registry)(nil)

func newRegistry() *registry {
	return &registry{subjects: map[string][]format.RegisteredSchema{}, byID: map[int]format.RegisteredSchema{}, next: 1}
}

func (r *registry) SchemaByID(_ context.Context, id int) (format.RegisteredSchema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.byID[id]; ok {
		return s, nil
	}
	return format.RegisteredSchema{}, fmt.Errorf("schema id %d: %w", id, format.ErrSchemaNotFound)
}

func (r *registry) Latest(_ context.Context, subject string) (format.RegisteredSchema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.subjects[subject]
	if len(vs) == 0 {
		return format.RegisteredSchema{}, fmt.Errorf("subject %s: %w", subject, format.ErrSchemaNotFound)
	}
	return vs[len(vs)-1], nil
}

func (r *registry) Register(_ context.Context, subject string, s format.Schema) (format.RegisteredSchema, error) {
	return r.register(subject, s, 0), nil
}

// register adds s under subject with id (0: the next free id), or
// returns the version it already is.
func (r *registry) register(subject string, s format.Schema, id int) format.RegisteredSchema {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.subjects[subject]
	for _, v := range vs {
		if v.Type == s.Type && v.Text == s.Text {
			return v
		}
	}
	if id == 0 {
		for _, known := range r.byID {
			if known.Type == s.Type && known.Text == s.Text {
				id = known.ID // one id per schema, across subjects
			}
		}
	}
	for id == 0 || r.byID[id].Text != "" && r.byID[id].Text != s.Text {
		id, r.next = r.next, r.next+1
	}
	rs := format.RegisteredSchema{Schema: s, ID: id, Version: len(vs) + 1, Subject: subject}
	r.byID[id] = rs
	r.subjects[subject] = append(vs, rs)
	return rs
}

func (r *registry) DeleteSubject(_ context.Context, subject string, _ bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.subjects, subject)
	return nil
}

// registerTopics registers the schemas the test's topics declare under
// <topic>-key / -value.
func (r *registry) registerTopics(topics []qtt.Topic) error {
	for _, t := range topics {
		if err := r.registerSide(format.KeySubject(t.Name), t.KeyFormat, t.KeySchema, t.KeySchemaID, t.KeyRefs); err != nil {
			return err
		}
		if err := r.registerSide(format.ValueSubject(t.Name), t.ValueFormat, t.ValueSchema, t.ValueSchemaID, t.ValueRefs); err != nil {
			return err
		}
	}
	return nil
}

func (r *registry) registerSide(subject, formatName string, schema json.RawMessage, id *int, refs []qtt.SchemaReferenceSpec) error {
	if len(schema) == 0 || string(schema) == "null" {
		return nil
	}
	if formatName == "" {
		formatName = guessFormat(schema)
	}
	typ, ok := format.SchemaTypeOf(strings.ToUpper(formatName))
	if !ok {
		return nil // a schema for a format without a registry: nothing to register
	}
	var references []format.SchemaReference
	for _, ref := range refs {
		references = append(references, format.SchemaReference{Name: ref.Name, Subject: ref.Name, Version: 1})
	}
	text := schemaText(schema)
	want := 0
	if id != nil {
		want = *id
	}
	// The schema first, then what it references: ksqlDB's harness gives
	// the topic's schema the first id (a test's VALUE_SCHEMA_ID=1 names
	// it, not its import), and its mock registry does not resolve
	// references at registration.
	r.register(subject, format.Schema{Type: typ, Text: text, References: references}, want)
	for _, ref := range refs {
		if err := r.registerSide(ref.Name, ref.Format, ref.Schema, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// guessFormat is the format of a topic's schema given without one, as
// ksqlDB's harness reads it: protobuf text, else Avro (the registry's
// default schema type).
func guessFormat(schema json.RawMessage) string {
	var s string
	if json.Unmarshal(schema, &s) == nil {
		return format.Protobuf
	}
	return format.Avro
}

// schemaText is a test's schema as registry text: a string as is (a
// protobuf schema), JSON compacted.
func schemaText(schema json.RawMessage) string {
	text := string(schema)
	var s string
	if json.Unmarshal(schema, &s) == nil {
		text = s // protobuf schemas are strings
	} else if compact, err := compactJSON(schema); err == nil {
		text = compact
	}
	return text
}

func compactJSON(b json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	return string(out), err
}
