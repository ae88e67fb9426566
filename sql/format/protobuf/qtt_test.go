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
func conformanceFile(t *testing.T, rel string) []byte {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("../../../../shared/conformance", rel))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("skipping: %v (the conformance data lives outside the project)", err)
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
