package qtt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestParseFileErrorPosition(t *testing.T) {
	_, err := ParseFile("bad.json", []byte("{\"tests\": [\n  // c\n  {\"name\": 1}\n]}"))
	if err == nil || err.Error()[:11] != "bad.json:3:" {
		t.Fatalf("got %v, want an error at bad.json:3:…", err)
	}
	_, err = ParseFile("bad.json", []byte("{\"tests\": [\n  {\"name\": \"x\",}\n]}"))
	if err == nil || err.Error()[:11] != "bad.json:2:" {
		t.Fatalf("got %v, want an error at bad.json:2:…", err)
	}
}

func TestParseFileKeepsValueText(t *testing.T) {
	f, err := ParseFile("t.json", []byte(`{"tests": [{"name": "x", "inputs": [
	  // object keys in the file's order, not sorted
	  {"topic": "t", "value": {"b": 1, "a": {"d": 2.50, "c": null}}},
	  {"topic": "t", "value": null}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	in := f.Tests[0].Inputs
	if got := string(in[0].ValueText); got != `{"b": 1, "a": {"d": 2.50, "c": null}}` {
		t.Errorf("value text %s", got)
	}
	if in[1].ValueText != nil || in[1].Value != nil {
		t.Errorf("tombstone: text %q value %v", in[1].ValueText, in[1].Value)
	}
}

// conformanceDir is ksqlDB's QTT data, kept outside the project tree.
const conformanceDir = "../../shared/conformance/ksql-qtt"

// TestConformanceFilesParse checks that every QTT file of ksqlDB parses
// and expands, and that records keep numbers as written.
func TestConformanceFilesParse(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(conformanceDir, "*.json"))
	if len(paths) == 0 {
		t.Skip("no conformance data at " + conformanceDir)
	}
	variants, easy := 0, 0
	for _, p := range paths {
		f, err := ReadFile(p, filepath.Base(p))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, v := range Expand(f) {
			variants++
			if len(v.Hard) == 0 && !v.Disabled {
				easy++
			}
		}
	}
	t.Logf("%d files, %d variants, %d easy", len(paths), variants, easy)
	if variants < len(paths) {
		t.Fatalf("only %d variants from %d files", variants, len(paths))
	}
	src, err := os.ReadFile(filepath.Join(conformanceDir, "decimal.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFile("decimal.json", src)
	if err != nil {
		t.Fatal(err)
	}
	got := f.Tests[0].Outputs[0].Value
	if got != "10.1234512345123451234" {
		t.Fatalf("DELIMITED output value = %#v", got)
	}
	v := f.Tests[2].Outputs[0].Value.(map[string]any)["DEC"]
	if v != json.Number("10.1234512345123451234") {
		t.Fatalf("JSON decimal kept as %#v", v)
	}
}
