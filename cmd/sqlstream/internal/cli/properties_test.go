package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestProperties pins how property files parse: one line per entry as
// "line N: key=<value>", or the error.
func TestProperties(t *testing.T) {
	datadriven.RunTest(t, "testdata/properties", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "parse" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		props, err := ParseProperties(strings.NewReader(d.Input))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		for _, p := range props {
			fmt.Fprintf(&b, "line %d: %s=%q\n", p.Line, p.Key, p.Value)
		}
		return b.String()
	})
}
