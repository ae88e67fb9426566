package script

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// testdata/split: "split" prints each statement with its offset and first
// word, then the rest and whether the text is complete.
func TestSplit(t *testing.T) {
	datadriven.RunTest(t, "testdata/split", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "split":
			stmts, rest := Split(d.Input)
			var b strings.Builder
			for _, s := range stmts {
				fmt.Fprintf(&b, "%d %s: %q\n", s.Offset, FirstWord(s.Text), s.Text)
			}
			fmt.Fprintf(&b, "rest: %q blank=%t complete=%t\n", rest, IsBlank(rest), Complete(d.Input))
			return b.String()
		}
		return "unknown command " + d.Cmd
	})
}
