package planner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// subjects is a registry of one schema per subject that counts lookups.
type subjects struct {
	schemas map[string]format.RegisteredSchema
	lookups int
}

func (r *subjects) SchemaByID(_ context.Context, id int) (format.RegisteredSchema, error) {
	r.lookups++
	for _, s := range r.schemas {
		if s.ID == id {
			return s, nil
		}
	}
	return format.RegisteredSchema{}, format.ErrSchemaNotFound
}

func (r *subjects) Latest(_ context.Context, subject string) (format.RegisteredSchema, error) {
	r.lookups++
	if s, ok := r.schemas[subject]; ok {
		return s, nil
	}
	return format.RegisteredSchema{}, format.ErrSchemaNotFound
}

func (r *subjects) Register(context.Context, string, format.Schema) (format.RegisteredSchema, error) {
	return format.RegisteredSchema{}, nil
}

func (r *subjects) DeleteSubject(context.Context, string, bool) error { return nil }

func renderColumns(s *types.Schema) string {
	var parts []string
	for _, c := range s.Columns {
		part := "`" + c.Name + "` " + c.Type.String()
		if c.NS == types.KeyNS {
			part += " KEY"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

func createSource(t *testing.T, p *planner.Planner, sql string) (*ast.CreateSource, *planner.Source, error) {
	t.Helper()
	stmts, err := parser.Parse(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	st := stmts[0].(*ast.CreateSource)
	src, err := p.CreateSource(st)
	return st, src, err
}

// TestInferColumns: CREATE without value columns reads them from the
// latest schema of <topic>-value (and the key from <topic>-key), and
// InferredStatement writes them into a statement that a planner creates
// again without asking the registry.
func TestInferColumns(t *testing.T) {
	reg := &subjects{schemas: map[string]format.RegisteredSchema{
		"t-value": {ID: 1, Schema: format.Schema{Type: format.AvroSchema, Text: `{"type":"record","name":"R","fields":[
			{"name":"name","type":["null","string"]},{"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}},
			{"name":"tags","type":{"type":"array","items":"string"}},{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}}]}`}},
		"t-key": {ID: 2, Schema: format.Schema{Type: format.JSONSchema, Text: `{"type":"integer","connect.type":"int32"}`}},
	}}
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	st, src, err := createSource(t, p, `CREATE TABLE t WITH (KAFKA_TOPIC='t', KEY_FORMAT='JSON_SR', VALUE_FORMAT='AVRO');`)
	if err != nil {
		t.Fatal(err)
	}
	want := "`ROWKEY` INTEGER KEY, `NAME` STRING, `PRICE` DECIMAL(4, 2), `TAGS` ARRAY<STRING>, `AT` TIMESTAMP"
	if got := renderColumns(src.Schema); got != want {
		t.Fatalf("inferred %s\nwant     %s", got, want)
	}
	text := planner.InferredStatement(st, src)
	if !strings.Contains(text, "`ROWKEY` INTEGER PRIMARY KEY") {
		t.Errorf("recorded statement %s", text)
	}
	reg.lookups = 0
	again := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	_, src2, err := createSource(t, again, text)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	if got := renderColumns(src2.Schema); got != want || reg.lookups != 0 {
		t.Errorf("replayed %s with %d registry lookups", got, reg.lookups)
	}
}

// TestInferColumnsErrors: a missing subject, a schema id of another type
// and a missing registry are statement errors with ksqlDB's messages.
func TestInferColumnsErrors(t *testing.T) {
	reg := &subjects{schemas: map[string]format.RegisteredSchema{
		"a-value": {ID: 7, Schema: format.Schema{Type: format.AvroSchema, Text: `"int"`}},
	}}
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	none := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	for _, tc := range []struct {
		p    *planner.Planner
		sql  string
		want string
	}{
		{p, `CREATE STREAM s WITH (KAFKA_TOPIC='nope', VALUE_FORMAT='JSON_SR');`,
			"Schema for message values on topic 'nope' does not exist in the Schema Registry.Subject: nope-value"},
		{p, `CREATE STREAM s WITH (KAFKA_TOPIC='a', VALUE_FORMAT='PROTOBUF', VALUE_SCHEMA_ID=7);`,
			"Format and fetched schema type using VALUE_SCHEMA_ID 7 are different. Format: [PROTOBUF], Fetched schema type: [AVRO]."},
		{none, `CREATE STREAM s (a INT) WITH (KAFKA_TOPIC='a', VALUE_FORMAT='AVRO');`,
			"Cannot create topic 'a' with format AVRO without configuring 'ksql.schema.registry.url'"},
	} {
		if _, _, err := createSource(t, tc.p, tc.sql); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.sql, err, tc.want)
		}
	}
}

// TestInferredTimestampColumn: TIMESTAMP='col' may name a column CREATE
// infers from the registry (ksqlDB checks it after inferring), and one the
// inferred schema lacks is still refused with ksqlDB's message.
func TestInferredTimestampColumn(t *testing.T) {
	reg := &subjects{schemas: map[string]format.RegisteredSchema{
		"t-value": {ID: 1, Schema: format.Schema{Type: format.AvroSchema, Text: `{"type":"record","name":"R","fields":[
			{"name":"id","type":"long"},{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}}]}`}},
	}}
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	_, src, err := createSource(t, p, `CREATE STREAM s WITH (KAFKA_TOPIC='t', VALUE_FORMAT='AVRO', TIMESTAMP='at');`)
	if err != nil {
		t.Fatal(err)
	}
	if src.TimestampColumn != "AT" {
		t.Errorf("timestamp column %q, want AT", src.TimestampColumn)
	}
	_, _, err = createSource(t, p, `CREATE STREAM s2 WITH (KAFKA_TOPIC='t', VALUE_FORMAT='AVRO', TIMESTAMP='missing');`)
	if err == nil || !strings.Contains(err.Error(), "does not exist in the schema: 'MISSING'") {
		t.Errorf("unknown inferred timestamp column: %v", err)
	}
}

// TestCreateAsSchemaIDColumns: CREATE … AS SELECT with KEY_/VALUE_SCHEMA_ID
// refuses a query whose columns the schema does not hold at their
// positions with their names and types, with ksqlDB's message; a schema
// with more columns after the query's is accepted.
func TestCreateAsSchemaIDColumns(t *testing.T) {
	reg := &subjects{schemas: map[string]format.RegisteredSchema{
		"wide":  {ID: 11, Schema: format.Schema{Type: format.AvroSchema, Text: `{"type":"record","name":"R","fields":[{"name":"A","type":["null","int"]},{"name":"B","type":["null","string"]},{"name":"C","type":["null","long"],"default":null}]}`}},
		"key":   {ID: 12, Schema: format.Schema{Type: format.AvroSchema, Text: `"string"`}},
		"proto": {ID: 13, Schema: format.Schema{Type: format.ProtobufSchema, Text: "syntax = \"proto3\";\n\nmessage K {\n  string key = 1;\n}\n"}},
	}}
	cat := planner.NewCatalog()
	p := planner.New(cat, functions.NewRegistry(), planner.Defaults{SchemaRegistry: reg})
	_, src, err := createSource(t, p, `CREATE STREAM s (k STRING KEY, a INT, b STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	if err != nil {
		t.Fatal(err)
	}
	cat.Put(src)
	for _, tc := range []struct{ sql, want string }{
		{`CREATE STREAM o WITH (VALUE_FORMAT='AVRO', VALUE_SCHEMA_ID=11) AS SELECT * FROM s;`, ""},
		{`CREATE STREAM o WITH (VALUE_FORMAT='AVRO', VALUE_SCHEMA_ID=11) AS SELECT k, a FROM s;`, ""},
		{`CREATE STREAM o WITH (VALUE_FORMAT='AVRO', VALUE_SCHEMA_ID=11) AS SELECT k, b, a FROM s;`,
			"The following value columns are changed, missing or reordered: [`B` STRING, `A` INTEGER]. Schema from schema registry is [`A` INTEGER, `B` STRING, `C` BIGINT]"},
		{`CREATE STREAM o WITH (VALUE_FORMAT='AVRO', VALUE_SCHEMA_ID=11) AS SELECT k, a, b, 1 AS d, 2 AS e FROM s;`,
			"The following value columns are changed, missing or reordered: [`D` INTEGER, `E` INTEGER]"},
		{`CREATE STREAM o WITH (KEY_FORMAT='AVRO', KEY_SCHEMA_ID=12, VALUE_FORMAT='JSON') AS SELECT * FROM s;`, ""},
		{`CREATE STREAM o WITH (KEY_FORMAT='PROTOBUF', KEY_SCHEMA_ID=13, VALUE_FORMAT='JSON') AS SELECT * FROM s;`,
			"The following key columns are changed, missing or reordered: [`K` STRING KEY]. Schema from schema registry is [`key` STRING KEY]"},
		{`CREATE STREAM o WITH (VALUE_FORMAT='PROTOBUF', VALUE_SCHEMA_ID=11) AS SELECT * FROM s;`,
			"Format and fetched schema type using VALUE_SCHEMA_ID 11 are different"},
	} {
		stmts, err := parser.Parse(tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.sql, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.sql, err, tc.want)
		}
	}
}

// TestRegistryKeyJoinRepartitions: a join whose key format is a registry
// format repartitions every side, as ksqlDB does (both keys then carry
// one serializer's schema id): streams are re-keyed by their own keys,
// tables reformatted; a KAFKA-keyed join of the same shape is not, nor
// is one planned for a command recorded before (LegacyJoinRepartition).
func TestRegistryKeyJoinRepartitions(t *testing.T) {
	for _, tc := range []struct {
		keyFormat, join, want string
		legacy                bool
	}{
		{"AVRO", "SELECT a.k, b.v FROM a JOIN b WITHIN 10 SECONDS ON a.k = b.k", "left rekeyed=true right rekeyed=true reformat=false", false},
		{"AVRO", "SELECT a.k, b.v FROM a JOIN b WITHIN 10 SECONDS ON a.k = b.k", "left rekeyed=false right rekeyed=false reformat=false", true},
		{"JSON_SR", "SELECT a.k, t.v FROM a JOIN t ON a.k = t.k", "left rekeyed=true right rekeyed=false reformat=true", false},
		{"KAFKA", "SELECT a.k, b.v FROM a JOIN b WITHIN 10 SECONDS ON a.k = b.k", "left rekeyed=false right rekeyed=false reformat=false", false},
		{"PROTOBUF", "SELECT t.k, u.v FROM t JOIN u ON t.k = u.k", "left reformat=true right rekeyed=false reformat=true", false},
	} {
		cat := planner.NewCatalog()
		p := planner.New(cat, functions.NewRegistry(), planner.Defaults{SchemaRegistry: &subjects{schemas: map[string]format.RegisteredSchema{}},
			LegacyJoinRepartition: tc.legacy})
		for _, ddl := range []string{
			`CREATE STREAM a (k INT KEY, v STRING) WITH (KAFKA_TOPIC='a', KEY_FORMAT='%s', VALUE_FORMAT='JSON', PARTITIONS=1);`,
			`CREATE STREAM b (k INT KEY, v STRING) WITH (KAFKA_TOPIC='b', KEY_FORMAT='%s', VALUE_FORMAT='JSON', PARTITIONS=1);`,
			`CREATE TABLE t (k INT PRIMARY KEY, v STRING) WITH (KAFKA_TOPIC='t', KEY_FORMAT='%s', VALUE_FORMAT='JSON', PARTITIONS=1);`,
			`CREATE TABLE u (k INT PRIMARY KEY, v STRING) WITH (KAFKA_TOPIC='u', KEY_FORMAT='%s', VALUE_FORMAT='JSON', PARTITIONS=1);`,
		} {
			_, src, err := createSource(t, p, fmt.Sprintf(ddl, tc.keyFormat))
			if err != nil {
				t.Fatal(err)
			}
			cat.Put(src)
		}
		kind := "STREAM"
		if strings.Contains(tc.join, "FROM t JOIN u") {
			kind = "TABLE"
		}
		stmts, err := parser.Parse("CREATE " + kind + " o AS " + tc.join + ";")
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.PlanCreateAs(stmts[0].(*ast.CreateAsSelect))
		if err != nil {
			t.Fatalf("%s %s: %v", tc.keyFormat, tc.join, err)
		}
		j := plan.Join
		got := fmt.Sprintf("left rekeyed=%v right rekeyed=%v reformat=%v", j.Left.Rekeyed(), j.Right.Rekeyed(), j.Right.Reformat)
		if j.Left.Reformat {
			got = "left reformat=true" + strings.TrimPrefix(got, "left rekeyed=false")
		}
		if got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.keyFormat, tc.join, got, tc.want)
		}
	}
}
