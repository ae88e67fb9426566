package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/format"
)

// memRegistry is a format.SchemaRegistry in memory whose compatibility
// rule refuses a new version with fewer properties than the latest
// (enough to see how a refused registration surfaces).
type memRegistry struct {
	mu       sync.Mutex
	subjects map[string][]format.RegisteredSchema
	byID     map[int]format.RegisteredSchema
}

func newMemRegistry() *memRegistry {
	return &memRegistry{subjects: map[string][]format.RegisteredSchema{}, byID: map[int]format.RegisteredSchema{}}
}

func (r *memRegistry) SchemaByID(_ context.Context, id int) (format.RegisteredSchema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.byID[id]; ok {
		return s, nil
	}
	return format.RegisteredSchema{}, format.ErrSchemaNotFound
}

func (r *memRegistry) Latest(_ context.Context, subject string) (format.RegisteredSchema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.subjects[subject]
	if len(vs) == 0 {
		return format.RegisteredSchema{}, format.ErrSchemaNotFound
	}
	return vs[len(vs)-1], nil
}

func (r *memRegistry) Register(_ context.Context, subject string, s format.Schema) (format.RegisteredSchema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.subjects[subject]
	for _, v := range vs {
		if v.Text == s.Text {
			return v, nil
		}
	}
	if n := len(vs); n > 0 && strings.Count(s.Text, "connect.index") < strings.Count(vs[n-1].Text, "connect.index") {
		return format.RegisteredSchema{}, &format.IncompatibleSchemaError{Subject: subject, Rule: "BACKWARD", Detail: "a field was removed"}
	}
	id := len(r.byID) + 1
	for _, known := range r.byID {
		if known.Text == s.Text {
			id = known.ID // one id per schema across subjects, as Confluent's registry
		}
	}
	rs := format.RegisteredSchema{Schema: s, ID: id, Version: len(vs) + 1, Subject: subject}
	r.byID[rs.ID] = rs
	r.subjects[subject] = append(vs, rs)
	return rs, nil
}

func (r *memRegistry) DeleteSubject(_ context.Context, subject string, _ bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.subjects, subject)
	return nil
}

// TestSchemaRegistrationRefused: a CSAS whose sink schema the registry
// refuses is a statement error naming the subject and the rule, and
// leaves no sink topic, catalog entry or query behind.
func TestSchemaRegistrationRefused(t *testing.T) {
	reg := newMemRegistry()
	e, err := NewTestEngine(nil, WithSchemaRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.ExecuteStatement(`CREATE STREAM src (a INT, b INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON_SR', PARTITIONS=1);`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Latest(context.Background(), "src-value"); err != nil {
		t.Fatalf("CREATE with columns registered no src-value: %v", err)
	}
	if _, err := e.ExecuteStatement(`CREATE STREAM out WITH (KAFKA_TOPIC='out') AS SELECT a, b FROM src;`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ExecuteStatement(`DROP STREAM out;`, nil); err != nil {
		t.Fatal(err)
	}
	_, err = e.ExecuteStatement(`CREATE STREAM out2 WITH (KAFKA_TOPIC='out') AS SELECT a FROM src;`, nil)
	if err == nil || !strings.Contains(err.Error(), "subject out-value under BACKWARD") {
		t.Fatalf("incompatible CSAS: %v, want an error naming out-value and BACKWARD", err)
	}
	if _, ok := e.cat.Get("OUT2"); ok {
		t.Errorf("OUT2 is in the catalog after a refused registration")
	}
	if len(e.queries) != 0 {
		t.Errorf("queries after a refused registration: %v", e.queries)
	}
}

// TestJSONSRInsertAndPrint: INSERT VALUES writes the wire format with the
// registered id, the query reads it back, PRINT shows the JSON payload,
// and a record with an unknown id is a processing-log error.
func TestJSONSRInsertAndPrint(t *testing.T) {
	reg := newMemRegistry()
	e, err := NewTestEngine(nil, WithSchemaRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`CREATE STREAM src (k STRING KEY, a INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON_SR', PARTITIONS=1);`,
		`CREATE STREAM out AS SELECT k, a * 2 AS d FROM src;`,
		`INSERT INTO src (k, a) VALUES ('x', 21);`,
	} {
		if _, err := e.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	in := e.Read("src")
	if len(in) != 1 {
		t.Fatalf("src holds %d records", len(in))
	}
	id, payload, ok := format.SplitWireHeader(in[0].Value)
	latest, _ := reg.Latest(context.Background(), "src-value")
	if !ok || id != latest.ID || string(payload) != `{"A":21}` {
		t.Fatalf("INSERT wrote %q (id %d, src-value is id %d)", in[0].Value, id, latest.ID)
	}
	if got := e.printer().Line(context.Background(), &in[0]); !strings.Contains(got, `value: {"A":21}`) {
		t.Errorf("PRINT line %q", got)
	}
	if err := e.Produce(&physical.OutRecord{Topic: "src", Partition: 0, Key: []byte("y"), Value: []byte("\x00\x00\x00\x10\x00{\"A\":1}")}); err != nil {
		t.Fatal(err)
	}
	out := e.Read("OUT")
	if len(out) != 1 {
		t.Fatalf("OUT holds %d records", len(out))
	}
	if _, payload, _ := format.SplitWireHeader(out[0].Value); string(payload) != `{"D":42}` {
		t.Errorf("OUT record %q", out[0].Value)
	}
	logged := e.Read(e.ProcessingLogTopic())
	if len(logged) != 1 || !strings.Contains(string(logged[0].Value), "schema id 4096") {
		t.Errorf("processing log: %v", logged)
	}
}

// TestSchemaIDRegistered: VALUE_SCHEMA_ID's schema is registered under the
// sink's subject; the CSAS writes with that id, and the stream reads the
// id's columns with their case kept.
func TestSchemaIDRegistered(t *testing.T) {
	reg := newMemRegistry()
	rs, _ := reg.Register(context.Background(), "other", format.Schema{Type: format.JSONSchema,
		Text: `{"type":"object","properties":{"id":{"type":"integer"},"Name":{"type":"string"}}}`})
	e, err := NewTestEngine(nil, WithSchemaRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`CREATE STREAM src WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON_SR', VALUE_SCHEMA_ID=1, PARTITIONS=1);`,
		`CREATE STREAM out WITH (VALUE_SCHEMA_ID=1) AS SELECT * FROM src;`,
		"INSERT INTO src (`id`, `Name`) VALUES (1, 'a');",
	} {
		if _, err := e.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, subject := range []string{"src-value", "OUT-value"} {
		if got, err := reg.Latest(context.Background(), subject); err != nil || got.ID != rs.ID {
			t.Errorf("%s: %+v, %v; want id %d", subject, got, err, rs.ID)
		}
	}
	out := e.Read("OUT")
	if len(out) != 1 {
		t.Fatalf("OUT holds %d records", len(out))
	}
	if id, payload, _ := format.SplitWireHeader(out[0].Value); id != rs.ID || string(payload) != `{"id":1,"Name":"a"}` {
		t.Errorf("OUT record %q", out[0].Value)
	}
}

// downRegistry answers nothing but registration: the registry went away
// after the stream was created.
type downRegistry struct{ *memRegistry }

func (downRegistry) SchemaByID(context.Context, int) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, errors.New("connection refused")
}

// TestRegistryUnavailableIsRetried: a record whose schema the registry
// cannot serve (it is down, the record is fine) fails the task, a
// retriable error, instead of going to the processing log and being
// skipped.
func TestRegistryUnavailableIsRetried(t *testing.T) {
	e, err := NewTestEngine(nil, WithSchemaRegistry(downRegistry{newMemRegistry()}))
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`CREATE STREAM src (a INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='JSON_SR', PARTITIONS=1);`,
		`CREATE STREAM out AS SELECT a FROM src;`,
	} {
		if _, err := e.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	err = e.Produce(&physical.OutRecord{Topic: "src", Partition: 0, Value: []byte("\x00\x00\x00\x00\x01{\"A\":1}")})
	if err == nil || !strings.Contains(err.Error(), "schema registry is unavailable") || !exec.IsRetriable(err) {
		t.Fatalf("Produce: %v (retriable %v), want a retriable registry error", err, exec.IsRetriable(err))
	}
	if logged := e.Read(e.ProcessingLogTopic()); len(logged) != 0 {
		t.Errorf("the record went to the processing log: %v", logged)
	}
}

// flakyRegistry refuses registrations while down is set (the registry is
// unreachable), as at a sink's first record.
type flakyRegistry struct {
	*memRegistry
	down bool
}

func (r *flakyRegistry) Register(ctx context.Context, subject string, s format.Schema) (format.RegisteredSchema, error) {
	if r.down {
		return format.RegisteredSchema{}, errors.New("connection refused")
	}
	return r.memRegistry.Register(ctx, subject, s)
}

// TestSinkRegistrationRetried: a repartition topic's (or a sink's) codec
// that cannot register its schema because the registry does not answer
// fails the task, a retriable error, instead of logging the row as a
// serialization error and dropping it.
func TestSinkRegistrationRetried(t *testing.T) {
	reg := &flakyRegistry{memRegistry: newMemRegistry()}
	e, err := NewTestEngine(nil, WithSchemaRegistry(reg))
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`CREATE STREAM src (k STRING KEY, a INT) WITH (KAFKA_TOPIC='src', VALUE_FORMAT='AVRO', PARTITIONS=1);`,
		`CREATE TABLE counts AS SELECT a, COUNT(k) AS n FROM src GROUP BY a;`,
	} {
		if _, err := e.ExecuteStatement(sql, nil); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	reg.down = true
	err = e.Produce(&physical.OutRecord{Topic: "src", Partition: 0, Key: []byte("x"), Value: []byte("\x00\x00\x00\x00\x01\x02\x02")})
	if err == nil || !strings.Contains(err.Error(), "schema registry is unavailable") || !exec.IsRetriable(err) {
		t.Fatalf("Produce: %v (retriable %v), want a retriable registry error", err, exec.IsRetriable(err))
	}
	if logged := e.Read(e.ProcessingLogTopic()); len(logged) != 0 {
		t.Errorf("the row went to the processing log: %q", logged[0].Value)
	}
}
