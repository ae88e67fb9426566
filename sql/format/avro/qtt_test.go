package avro

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// qttDir holds ksqlDB's QTT files, the oracle of the schemas ksqlDB
// registers; they are read in place, never copied into the project.
const qttDir = "../../../../shared/conformance/ksql-qtt"

// TestSchemaMatchesQTT checks Schema against every AVRO schema ksqlDB's
// QTT files expect a sink to register (post.topics): the columns
// inferred from the expected schema, printed again under its name, must
// be that schema.
func TestSchemaMatchesQTT(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(qttDir, "*.json"))
	if len(files) == 0 {
		t.Skipf("no QTT files under %s", qttDir)
	}
	checked := 0
	for _, f := range files {
		for _, want := range expectedAvroSchemas(t, f) {
			checked++
			checkQTTSchema(t, f, want)
		}
	}
	if checked == 0 {
		t.Fatal("found no expected AVRO schemas in the QTT files")
	}
	t.Logf("%d expected AVRO schemas match", checked)
}

func checkQTTSchema(t *testing.T, file string, want expected) {
	o := Options{OriginalNames: true, Unwrapped: want.unwrapped, Key: want.key}
	var named struct {
		Name, Namespace string
	}
	_ = json.Unmarshal([]byte(want.schema), &named)
	if named.Name != "" {
		o.FullName = named.Namespace + "." + named.Name
	}
	cols, err := Columns(want.schema, nil, o)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	got, err := Schema(cols, o)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return
	}
	if !sameJSON(t, got, want.schema) {
		t.Errorf("%s:\n got %s\nwant %s", filepath.Base(file), got, want.schema)
	}
}

type expected struct {
	schema    string
	key       bool
	unwrapped bool
}

var lineComment = regexp.MustCompile(`(?m)^\s*//.*$`)

// expectedAvroSchemas lists the post.topics AVRO key and value schemas of
// a QTT file.
func expectedAvroSchemas(t *testing.T, file string) []expected {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests []struct {
			Post struct {
				Topics struct {
					Topics []struct {
						KeyFormat, ValueFormat struct {
							Format   string
							Features []string
						}
						KeySchema, ValueSchema json.RawMessage
					}
				}
			}
		}
	}
	if err := json.Unmarshal(lineComment.ReplaceAll(raw, nil), &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var out []expected
	for _, tc := range doc.Tests {
		for _, tp := range tc.Post.Topics.Topics {
			if tp.KeyFormat.Format == "AVRO" && len(tp.KeySchema) > 0 {
				out = append(out, expected{schema: string(tp.KeySchema), key: true, unwrapped: true})
			}
			if tp.ValueFormat.Format == "AVRO" && len(tp.ValueSchema) > 0 {
				out = append(out, expected{schema: string(tp.ValueSchema)})
			}
		}
	}
	return out
}
