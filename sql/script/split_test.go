package script

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// testdata/split: "split" prints each statement with its offset and first
// word, then the rest and whether the text is complete; "all" prints the
// statements of All the same way, and checks each offset.
func TestSplit(t *testing.T) {
	datadriven.RunTest(t, "testdata/split", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "split":
			stmts, rest := Split(d.Input)
			b := printStatements(t, d.Input, stmts)
			fmt.Fprintf(b, "rest: %q blank=%t complete=%t\n", rest, IsBlank(rest), Complete(d.Input))
			return b.String()
		case "all":
			return printStatements(t, d.Input, All(d.Input)).String()
		}
		return "unknown command " + d.Cmd
	})
}

func printStatements(t *testing.T, text string, stmts []Statement) *strings.Builder {
	var b strings.Builder
	for _, s := range stmts {
		if !strings.HasPrefix(text[s.Offset:], s.Text) {
			t.Errorf("offset %d does not start %q", s.Offset, s.Text)
		}
		fmt.Fprintf(&b, "%d %s: %q\n", s.Offset, FirstWord(s.Text), s.Text)
	}
	if len(stmts) == 0 {
		b.WriteString("no statements\n")
	}
	return &b
}
