package format

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestREST runs testdata/rest. Each command's input is a SQL type on the
// first line and a JSON value (converted with FromJSON) on the second:
//
//	rest       AppendRESTJSON of the value
//	topic      ToJSON of the value, marshalled by encoding/json
//	from-json  the Go value FromJSON produces (or its error)
func TestREST(t *testing.T) {
	datadriven.RunTest(t, "testdata/rest", func(t *testing.T, d *datadriven.TestData) string {
		typText, valText, _ := strings.Cut(d.Input, "\n")
		typ := mustType(t, typText)
		v, err := FromJSON(mustJSON(t, valText), typ)
		if err != nil {
			return "error: " + err.Error()
		}
		switch d.Cmd {
		case "rest":
			return string(AppendRESTJSON(nil, v, typ))
		case "topic":
			out, err := json.Marshal(ToJSON(v, typ))
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		case "from-json":
			return describe(v)
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

func TestRenderJSONInsideEncodingJSON(t *testing.T) {
	row := []any{RenderJSON(mustDecimal(t, "10.10"), mustType(t, "DECIMAL(4,2)")), RenderJSON(nil, mustType(t, "INT"))}
	out, err := json.Marshal(map[string]any{"row": map[string]any{"columns": row}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"row":{"columns":[10.10,null]}}`; string(out) != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

func TestAppendRESTJSONMismatchedGoType(t *testing.T) {
	// A value whose Go type does not match the SQL type is still rendered.
	if got := string(AppendRESTJSON(nil, "x", mustType(t, "INT"))); got != `"x"` {
		t.Fatalf("got %s", got)
	}
}
