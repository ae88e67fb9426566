package avro

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// TestSchema runs testdata/schema:
//
//	schema [unwrapped] [key] [name=FULL]
//	NAME TYPE        (one column per line)
//	----
//	the schema's canonical text | error: …
func TestSchema(t *testing.T) {
	datadriven.RunTest(t, "testdata/schema", func(t *testing.T, d *datadriven.TestData) string {
		cols := parseCols(t, d.Input)
		s, err := Schema(cols, options(d))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		if _, err := parse(s, nil); err != nil {
			t.Fatalf("Schema printed text Avro cannot parse: %v\n%s", err, s)
		}
		return s + "\n"
	})
}

// TestColumns runs testdata/columns:
//
//	columns [unwrapped] [key] [original]
//	<Avro schema JSON>
//	----
//	NAME TYPE (one per line) | error: …
func TestColumns(t *testing.T) {
	datadriven.RunTest(t, "testdata/columns", func(t *testing.T, d *datadriven.TestData) string {
		cols, err := Columns(d.Input, nil, options(d))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		for _, c := range cols {
			fmt.Fprintf(&b, "%s %s\n", c.Name, c.Type)
		}
		return b.String()
	})
}

func options(d *datadriven.TestData) Options {
	var o Options
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "unwrapped":
			o.Unwrapped = true
		case "key":
			o.Key = true
		case "original":
			o.OriginalNames = true
		case "name":
			o.FullName = a.Vals[0]
		}
	}
	return o
}

// parseCols reads "NAME TYPE" lines.
func parseCols(t *testing.T, input string) []types.Column {
	t.Helper()
	var cols []types.Column
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		name, typ, _ := strings.Cut(line, " ")
		ty, err := parser.ParseType(typ)
		if err != nil {
			t.Fatalf("column %q: %v", line, err)
		}
		cols = append(cols, types.Column{Name: name, Type: ty})
	}
	return cols
}

// sameJSON reports whether a and b are the same JSON value, object keys
// in any order (the registry compares parsed schemas, not text).
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return string(xs) == string(ys)
}
