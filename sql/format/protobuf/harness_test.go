package protobuf

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/types"
)

// parseColumns reads "NAME TYPE" lines (TYPE in SQL syntax).
func parseColumns(t *testing.T, text string) []types.Column {
	t.Helper()
	var cols []types.Column
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		name, typ, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("column line %q: want NAME TYPE", line)
		}
		ty, err := parser.ParseType(typ)
		if err != nil {
			t.Fatalf("column %s: %v", name, err)
		}
		cols = append(cols, types.Column{Name: name, Type: ty})
	}
	return cols
}

// scanOptions reads name=, nullable=, key, unwrapped and keep-case.
func scanOptions(t *testing.T, d *datadriven.TestData) Options {
	var o Options
	if d.HasArg("name") {
		d.ScanArgs(t, "name", &o.FullName)
	}
	if d.HasArg("nullable") {
		d.ScanArgs(t, "nullable", &o.NullableRepresentation)
	}
	o.Key, o.Unwrapped, o.KeepCase = d.HasArg("key"), d.HasArg("unwrapped"), d.HasArg("keep-case")
	return o
}

func formatColumns(cols []types.Column) string {
	var b strings.Builder
	for _, c := range cols {
		ns := ""
		if c.NS == types.KeyNS {
			ns = " KEY"
		}
		fmt.Fprintf(&b, "%s %s%s\n", c.Name, c.Type, ns)
	}
	if b.Len() == 0 {
		return "(no columns)\n"
	}
	return b.String()
}

// splitRefs splits a test input into the schema and references given as
// "-- ref path" sections after it.
func splitRefs(input string) (string, Refs) {
	parts := strings.Split(input, "-- ref ")
	refs := Refs{}
	for _, p := range parts[1:] {
		path, text, _ := strings.Cut(p, "\n")
		refs[strings.TrimSpace(path)] = text
	}
	return parts[0], refs
}

func TestSchema(t *testing.T) {
	datadriven.RunTest(t, "testdata/schema", func(t *testing.T, d *datadriven.TestData) string {
		s, err := Schema(parseColumns(t, d.Input), scanOptions(t, d))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		// Every schema we print must compile.
		if _, err := compile(s, nil); err != nil {
			t.Fatalf("printed schema does not compile: %v\n%s", err, s)
		}
		return s
	})
}

func TestColumns(t *testing.T) {
	datadriven.RunTest(t, "testdata/columns", func(t *testing.T, d *datadriven.TestData) string {
		schema, refs := splitRefs(d.Input)
		switch d.Cmd {
		case "columns":
			cols, err := Columns(schema, refs, scanOptions(t, d))
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return formatColumns(cols)
		case "indexes":
			o := scanOptions(t, d)
			idx, err := MessageIndexes(schema, refs, o.FullName)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			name, err := MessageByIndexes(schema, refs, idx)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return fmt.Sprintf("%v %s\n", idx, name)
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}
