package schemaregistry

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// rig is a kfake cluster with registries on it, each behind an httptest
// server and a franz-go sr.Client.
type rig struct {
	t       *testing.T
	cluster *kfake.Cluster
}

func newRig(t *testing.T) *rig {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &rig{t: t, cluster: c}
}

type server struct {
	reg *Registry
	url string
	cl  *sr.Client
}

// start opens a registry on the rig's cluster (topic "" = _schemas).
func (g *rig) start(topic string) *server {
	g.t.Helper()
	opts := []Option{WithKafka(kgo.SeedBrokers(g.cluster.ListenAddrs()...))}
	if topic != "" {
		opts = append(opts, WithTopic(topic))
	}
	reg, err := New(context.Background(), opts...)
	if err != nil {
		g.t.Fatal(err)
	}
	hs := httptest.NewServer(reg.Handler())
	g.t.Cleanup(func() { hs.Close(); reg.Close() })
	cl, err := sr.NewClient(sr.URLs(hs.URL))
	if err != nil {
		g.t.Fatal(err)
	}
	return &server{reg: reg, url: hs.URL, cl: cl}
}

// code is the Confluent error code of err (0 for nil, -1 for another error).
func code(err error) int {
	if err == nil {
		return 0
	}
	var re *sr.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return -1
}

const (
	avroV1 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`
	// avroV2 adds a field with a default: BACKWARD and FORWARD compatible.
	avroV2 = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]}`
	// avroNoDefault adds a field without a default: not BACKWARD compatible.
	avroNoDefault = `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"c","type":"string"}]}`
)

func avroSchema(s string) sr.Schema { return sr.Schema{Schema: s} }

func TestRegisterIdsAndVersions(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	a, err := s.cl.CreateSchema(ctx, "t-value", avroSchema(avroV1))
	if err != nil || a.ID != 1 || a.Version != 1 {
		t.Fatalf("first register: %+v %v", a, err)
	}
	again, err := s.cl.CreateSchema(ctx, "t-value", avroSchema(" "+avroV1+"\n"))
	if err != nil || again.ID != 1 || again.Version != 1 {
		t.Fatalf("same schema again (white space differs): %+v %v", again, err)
	}
	other, err := s.cl.CreateSchema(ctx, "u-value", avroSchema(avroV1))
	if err != nil || other.ID != 1 || other.Version != 1 {
		t.Fatalf("same schema under another subject shares the id: %+v %v", other, err)
	}
	p1 := mustCreate(t, s, "p-value", sr.Schema{Schema: protoV1, Type: sr.TypeProtobuf})
	laidOut := "// a comment\nsyntax = \"proto3\";\npackage p;\n\nmessage M {\n  int32 a = 1;\n  string s = 2;\n}\nmessage Other {\n  int32 x = 1;\n}\n"
	if p2 := mustCreate(t, s, "p-value", sr.Schema{Schema: laidOut, Type: sr.TypeProtobuf}); p2.ID != p1.ID || p2.Version != 1 {
		t.Fatalf("a protobuf schema laid out differently is the same schema: %+v, first %+v", p2, p1)
	}
	b, err := s.cl.CreateSchema(ctx, "t-value", avroSchema(avroV2))
	if err != nil || b.ID != 3 || b.Version != 2 {
		t.Fatalf("second version: %+v %v", b, err)
	}
	got, err := s.cl.SchemaByID(ctx, 3)
	if err != nil || got.Schema != avroV2 || got.Type != sr.TypeAvro {
		t.Fatalf("by id: %+v %v", got, err)
	}
	latest, err := s.cl.SchemaByVersion(ctx, "t-value", -1)
	if err != nil || latest.Version != 2 || latest.ID != 3 {
		t.Fatalf("latest: %+v %v", latest, err)
	}
	vs, err := s.cl.SubjectVersions(ctx, "t-value")
	if err != nil || len(vs) != 2 || vs[0] != 1 || vs[1] != 2 {
		t.Fatalf("versions: %v %v", vs, err)
	}
	subjects, err := s.cl.Subjects(ctx)
	if err != nil || len(subjects) != 3 || subjects[0] != "p-value" || subjects[1] != "t-value" || subjects[2] != "u-value" {
		t.Fatalf("subjects: %v %v", subjects, err)
	}
	found, err := s.cl.LookupSchema(ctx, "t-value", avroSchema(avroV1))
	if err != nil || found.Version != 1 || found.ID != 1 {
		t.Fatalf("lookup: %+v %v", found, err)
	}
	if _, err := s.cl.LookupSchema(ctx, "t-value", avroSchema(avroNoDefault)); code(err) != codeSchemaNotFound {
		t.Fatalf("lookup of an unregistered schema: %v", err)
	}
	if _, err := s.cl.SchemaByID(ctx, 99); code(err) != codeSchemaNotFound {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := s.cl.SchemaByVersion(ctx, "nope", 1); code(err) != codeSubjectNotFound {
		t.Fatalf("unknown subject: %v", err)
	}
	if _, err := s.cl.SchemaByVersion(ctx, "t-value", 7); code(err) != codeVersionNotFound {
		t.Fatalf("unknown version: %v", err)
	}
}

func TestInvalidSchemas(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	for _, c := range []sr.Schema{
		{Schema: `{"type":"recrd","name":"R"}`},
		{Schema: `{"type":"record","name":"R","fields":[{"name":"1x","type":"int"}]}`},
		{Schema: `syntax = "proto3"; message M { int32 a = 1 }`, Type: sr.TypeProtobuf},
		{Schema: `{"type": 5}`, Type: sr.TypeJSON},
		{Schema: `{"type":"record","name":"R","fields":[{"name":"a","type":"Other"}]}`,
			References: []sr.SchemaReference{{Name: "Other", Subject: "missing", Version: 1}}},
	} {
		if _, err := s.cl.CreateSchema(ctx, "bad", c); code(err) != codeInvalidSchema {
			t.Errorf("%s: want 42201, got %v", c.Schema, err)
		}
	}
}

func TestDeletes(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	mustCreate(t, s, "d", avroSchema(avroV1))
	mustCreate(t, s, "d", avroSchema(avroV2))
	if _, err := s.cl.DeleteSubject(ctx, "d", sr.HardDelete); code(err) != codeSubjectNotSoftDeleted {
		t.Fatalf("hard delete before soft: %v", err)
	}
	if err := s.cl.DeleteSchema(ctx, "d", 2, sr.SoftDelete); err != nil {
		t.Fatal(err)
	}
	if latest, err := s.cl.SchemaByVersion(ctx, "d", -1); err != nil || latest.Version != 1 {
		t.Fatalf("latest after deleting version 2: %+v %v", latest, err)
	}
	if got, err := s.cl.DeleteSubject(ctx, "d", sr.SoftDelete); err != nil || len(got) != 1 || got[0] != 1 {
		t.Fatalf("soft delete: %v %v", got, err)
	}
	if _, err := s.cl.SubjectVersions(ctx, "d"); code(err) != codeSubjectNotFound {
		t.Fatalf("versions of a soft-deleted subject: %v", err)
	}
	if sch, err := s.cl.SchemaByID(ctx, 1); err != nil || sch.Schema != avroV1 {
		t.Fatalf("id of a soft-deleted version still reads: %+v %v", sch, err)
	}
	again := mustCreate(t, s, "d", avroSchema(avroV1))
	if again.ID != 1 || again.Version != 3 {
		t.Fatalf("re-register after soft delete keeps the id, takes a new version: %+v", again)
	}
	if _, err := s.cl.DeleteSubject(ctx, "d", sr.SoftDelete); err != nil {
		t.Fatal(err)
	}
	if got, err := s.cl.DeleteSubject(ctx, "d", sr.HardDelete); err != nil || len(got) != 3 {
		t.Fatalf("hard delete: %v %v", got, err)
	}
	if _, err := s.cl.DeleteSubject(ctx, "d", sr.SoftDelete); code(err) != codeSubjectNotFound {
		t.Fatalf("delete of a gone subject: %v", err)
	}
	if _, err := s.cl.SchemaByID(ctx, 1); code(err) != codeSchemaNotFound {
		t.Fatalf("id with no version left: %v", err)
	}
}

func mustCreate(t *testing.T, s *server, subject string, sch sr.Schema) sr.SubjectSchema {
	t.Helper()
	got, err := s.cl.CreateSchema(context.Background(), subject, sch)
	if err != nil {
		t.Fatalf("register %s: %v", subject, err)
	}
	return got
}

func TestConfigAndMode(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	if c := s.cl.Compatibility(ctx)[0]; c.Err != nil || c.Level != sr.CompatBackward {
		t.Fatalf("global default: %+v", c)
	}
	if c := s.cl.Compatibility(ctx, "x")[0]; code(c.Err) != codeSubjectCompatNotSet {
		t.Fatalf("subject without a level: %+v", c)
	}
	if c := s.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}, "x")[0]; c.Err != nil || c.Level != sr.CompatNone {
		t.Fatalf("set: %+v", c)
	}
	mustCreate(t, s, "x", avroSchema(avroV1))
	mustCreate(t, s, "x", avroSchema(`"string"`)) // NONE lets anything through
	if c := s.cl.ResetCompatibility(ctx, "x")[0]; c.Err != nil || c.Level != sr.CompatNone {
		t.Fatalf("reset returns the old level: %+v", c)
	}
	if _, err := s.cl.CreateSchema(ctx, "x", avroSchema(avroV2)); code(err) != codeIncompatible {
		t.Fatalf("BACKWARD again after reset: %v", err)
	}
	if m := s.cl.SetMode(ctx, sr.ModeReadOnly, "x")[0]; m.Err != nil {
		t.Fatal(m.Err)
	}
	if _, err := s.cl.CreateSchema(ctx, "x", avroSchema(`"long"`)); code(err) != codeOperationNotPermitted {
		t.Fatalf("register in READONLY: %v", err)
	}
	if m := s.cl.Mode(ctx)[0]; m.Err != nil || m.Mode != sr.ModeReadWrite {
		t.Fatalf("global mode: %+v", m)
	}
	types, err := s.cl.SupportedTypes(ctx)
	if err != nil || len(types) != 3 {
		t.Fatalf("types: %v %v", types, err)
	}
}

// TestImportMode: in IMPORT mode schemas keep the ids and versions a
// migration gives them, without compatibility checks; ids allocated
// afterwards continue above them.
func TestImportMode(t *testing.T) {
	ctx := context.Background()
	s := newRig(t).start("")
	if m := s.cl.SetMode(ctx, sr.ModeImport)[0]; m.Err != nil {
		t.Fatal(m.Err)
	}
	got, err := s.cl.CreateSchemaWithIDAndVersion(ctx, "imp", avroSchema(avroV1), 100, 3)
	if err != nil || got.ID != 100 || got.Version != 3 {
		t.Fatalf("import with id and version: %+v %v", got, err)
	}
	if _, err := s.cl.CreateSchemaWithIDAndVersion(ctx, "imp", avroSchema(`"string"`), 101, 4); err != nil {
		t.Fatalf("an incompatible schema imports: %v", err)
	}
	if _, err := s.cl.CreateSchemaWithIDAndVersion(ctx, "other", avroSchema(`"long"`), 100, 1); code(err) != codeOperationNotPermitted {
		t.Fatalf("a taken id for another schema: %v", err)
	}
	if _, err := s.cl.CreateSchema(ctx, "imp", avroSchema(`"long"`)); code(err) != codeOperationNotPermitted {
		t.Fatalf("no id in IMPORT mode: %v", err)
	}
	if m := s.cl.SetMode(ctx, sr.ModeReadWrite)[0]; m.Err != nil {
		t.Fatal(m.Err)
	}
	if _, err := s.cl.CreateSchemaWithIDAndVersion(ctx, "imp", avroSchema(`"long"`), 7, 0); code(err) != codeOperationNotPermitted {
		t.Fatalf("an id outside IMPORT mode: %v", err)
	}
	s.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone}, "imp")
	if next := mustCreate(t, s, "imp", avroSchema(`"long"`)); next.ID != 102 || next.Version != 5 {
		t.Fatalf("after the import: %+v", next)
	}
	if m := s.cl.SetMode(ctx, sr.ModeImport)[0]; code(m.Err) != codeOperationNotPermitted {
		t.Fatalf("IMPORT over existing subjects without force: %+v", m)
	}
}
