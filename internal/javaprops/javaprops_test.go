package javaprops

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestProperties pins how property files parse: one line per entry as
// "line N: key=<value>", or the error.
func TestProperties(t *testing.T) {
	datadriven.RunTest(t, "testdata/parse", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "parse" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		props, err := Parse(strings.NewReader(d.Input))
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

// TestPropertiesLongLine: a value over the line limit is an error naming
// its line, not bufio's bare "token too long".
func TestPropertiesLongLine(t *testing.T) {
	in := "a=1\nb=" + strings.Repeat("x", maxLine) + "\nc=3\n"
	_, err := Parse(strings.NewReader(in))
	var pe *Error
	if !errors.As(err, &pe) || pe.Line != 2 {
		t.Fatalf("Parse with a %d-byte line 2: %v, want a Error on line 2", maxLine, err)
	}
	if !strings.Contains(err.Error(), "line 2: line longer than 65536 bytes") {
		t.Errorf("error %q does not name the line and the limit", err)
	}
}
