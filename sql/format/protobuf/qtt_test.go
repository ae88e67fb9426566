package protobuf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// ksqlDB's own test files pin the schemas it registers; they live beside
// the project (../shared) and are read at test time, never copied.
func conformancePath(t *testing.T, rel string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("../../../../shared/conformance", rel))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: %v (the conformance data lives outside the project)", err)
	}
	return path
}

func conformanceFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(conformancePath(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type qttFile struct {
	Tests []struct {
		Name       string   `json:"name"`
		Statements []string `json:"statements"`
		Post       struct {
			Topics struct {
				Topics []struct {
					Name        string `json:"name"`
					ValueSchema any    `json:"valueSchema"`
				} `json:"topics"`
			} `json:"topics"`
		} `json:"post"`
	} `json:"tests"`
}

// TestSchemaMatchesQTT prints the value schema of each CREATE in
// protobuf.json whose registered schema the test pins, and compares it to
// ksqlDB's text byte for byte.
func TestSchemaMatchesQTT(t *testing.T) {
	var f qttFile
	if err := json.Unmarshal(conformanceFile(t, "ksql-qtt/protobuf.json"), &f); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tc := range f.Tests {
		stmts, err := parser.Parse(strings.Join(tc.Statements, "\n"))
		if err != nil {
			continue
		}
		for _, topic := range tc.Post.Topics.Topics {
			want, ok := topic.ValueSchema.(string)
			if !ok || !strings.Contains(want, "proto3") {
				continue
			}
			cols, o := qttValueColumns(t, stmts, topic.Name)
			got, err := Schema(cols, o)
			if err != nil {
				t.Fatalf("%s / %s: %v", tc.Name, topic.Name, err)
			}
			if got != want {
				t.Errorf("%s / %s:\n%s\nwant (ksqlDB):\n%s", tc.Name, topic.Name, got, want)
			}
			checked++
		}
	}
	if checked < 6 {
		t.Fatalf("checked %d schemas; protobuf.json pins 6", checked)
	}
}

// qttValueColumns finds the value columns and options of topic: the first
// CREATE's columns, with the nullable representation of the statement that
// writes the topic (the CREATE itself, or a CSAS named like the topic).
func qttValueColumns(t *testing.T, stmts []ast.Statement, topic string) ([]types.Column, Options) {
	var cols []types.Column
	var o Options
	for _, s := range stmts {
		switch s := s.(type) {
		case *ast.CreateSource:
			for _, c := range s.Columns {
				if c.Constraint == ast.NoConstraint {
					cols = append(cols, types.Column{Name: c.Name, Type: c.Type})
				}
			}
			if strings.EqualFold(prop(s.Props, "KAFKA_TOPIC"), topic) {
				o.NullableRepresentation = prop(s.Props, "VALUE_PROTOBUF_NULLABLE_REPRESENTATION")
			}
		case *ast.CreateAsSelect:
			if strings.EqualFold(s.Name, topic) {
				o.NullableRepresentation = prop(s.Props, "VALUE_PROTOBUF_NULLABLE_REPRESENTATION")
			}
		}
	}
	return cols, o
}

func prop(ps ast.Properties, name string) string {
	for _, p := range ps {
		if p.Name == name {
			s, _ := p.Value.Value.(string)
			return s
		}
	}
	return ""
}

// TestSchemaRoundTripsRQTT infers the columns of each protoSchema a REST
// pull query returns in ksqlDB's rqtt file and prints them back: the text
// must be ksqlDB's, nested messages and map entries included.
func TestSchemaRoundTripsRQTT(t *testing.T) {
	text := string(conformanceFile(t, "ksql-rqtt/pull-queries-protobuf.json"))
	re := regexp.MustCompile(`"protoSchema"\s*:\s*("(?:[^"\\]|\\.)*")`)
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		var want string
		if err := json.Unmarshal([]byte(m[1]), &want); err != nil {
			t.Fatal(err)
		}
		if seen[want] {
			continue
		}
		seen[want] = true
		cols, err := Columns(want, nil, Options{KeepCase: true})
		if err != nil {
			t.Fatalf("%v\n%s", err, want)
		}
		got, err := Schema(cols, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("columns %v print as\n%s\nwant (ksqlDB):\n%s", cols, got, want)
		}
	}
	if len(seen) < 5 {
		t.Fatalf("found %d protoSchemas in the rqtt file", len(seen))
	}
}

// TestColumnsMatchQTT infers the value columns of every CREATE in
// protobuf.json that reads a registered schema and compares them with
// the source schemas ksqlDB's test pins (post.sources: the source itself,
// or the SELECT * stream over it). Every protobuf schema of every QTT file
// must compile and infer.
func TestColumnsMatchQTT(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(filepath.Dir(conformancePath(t, "ksql-qtt/protobuf.json")), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, path := range files {
		var f qttSchemaFile
		if json.Unmarshal(conformanceFile(t, filepath.Join("ksql-qtt", filepath.Base(path))), &f) != nil {
			continue // a file Go's JSON reader rejects (not a protobuf one)
		}
		for _, tc := range f.Tests {
			compared += checkQTTColumns(t, filepath.Base(path), tc)
		}
	}
	if compared < 11 {
		t.Fatalf("compared %d inferred schemas; protobuf.json pins 11", compared)
	}
}

type qttSchemaFile struct {
	Tests []qttSchemaTest `json:"tests"`
}

type qttSchemaTest struct {
	Name       string           `json:"name"`
	Statements []string         `json:"statements"`
	Topics     []map[string]any `json:"topics"`
	Post       struct {
		Sources []struct {
			Name   string `json:"name"`
			Schema string `json:"schema"`
		} `json:"sources"`
	} `json:"post"`
}

// checkQTTColumns infers every protobuf schema of tc and, when the first
// statement creates a source from one, compares with ksqlDB's; it returns
// how many it compared.
func checkQTTColumns(t *testing.T, file string, tc qttSchemaTest) int {
	inferred := map[string][]types.Column{} // topic → value columns
	for _, tp := range tc.Topics {
		for _, side := range []string{"keySchema", "valueSchema"} {
			text, ok := tp[side].(string)
			if !ok || !strings.Contains(text, "proto") {
				continue
			}
			cols, err := Columns(text, qttRefs(tp[side+"References"]), Options{Key: side == "keySchema"})
			if err != nil {
				t.Errorf("%s / %s / %s: %v", file, tc.Name, side, err)
			}
			if side == "valueSchema" {
				inferred[tp["name"].(string)] = cols
			}
		}
	}
	if file != "protobuf.json" || len(tc.Post.Sources) == 0 || len(tc.Statements) == 0 {
		return 0
	}
	stmts, err := parser.Parse(tc.Statements[0])
	if err != nil {
		return 0
	}
	create, ok := stmts[0].(*ast.CreateSource)
	if !ok {
		return 0
	}
	text := ""
	for _, tp := range tc.Topics {
		if tp["name"] == prop(create.Props, "KAFKA_TOPIC") {
			text, _ = tp["valueSchema"].(string)
		}
	}
	if text == "" {
		return 0
	}
	o := Options{FullName: prop(create.Props, "VALUE_SCHEMA_FULL_NAME"), KeepCase: propSet(create.Props, "VALUE_SCHEMA_ID")}
	var refs Refs
	for _, tp := range tc.Topics {
		if tp["name"] == prop(create.Props, "KAFKA_TOPIC") {
			refs = qttRefs(tp["valueSchemaReferences"])
		}
	}
	got, err := Columns(text, refs, o)
	if err != nil {
		t.Errorf("%s: %v", tc.Name, err)
		return 0
	}
	want := qttValueSchema(t, tc.Post.Sources[0].Schema)
	if formatColumns(got) != formatColumns(want) {
		t.Errorf("%s: inferred\n%swant (ksqlDB):\n%s", tc.Name, formatColumns(got), formatColumns(want))
	}
	return 1
}

func qttRefs(v any) Refs {
	refs := Refs{}
	list, _ := v.([]any)
	for _, r := range list {
		if m, ok := r.(map[string]any); ok {
			name, _ := m["name"].(string)
			text, _ := m["schema"].(string)
			refs[name] = text
		}
	}
	return refs
}

func propSet(ps ast.Properties, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

// qttValueSchema reads a post.sources schema ("K STRING KEY, C1 INT") by
// parsing it as the column list of a CREATE; it returns the value columns.
func qttValueSchema(t *testing.T, schema string) []types.Column {
	stmts, err := parser.Parse("CREATE STREAM S (" + schema + ") WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON');")
	if err != nil {
		t.Fatalf("post schema %q: %v", schema, err)
	}
	var cols []types.Column
	for _, c := range stmts[0].(*ast.CreateSource).Columns {
		if c.Constraint == ast.NoConstraint {
			cols = append(cols, types.Column{Name: c.Name, Type: c.Type})
		}
	}
	return cols
}
