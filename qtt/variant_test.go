package qtt

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestExpand prints the variants of a QTT file: name, whether it is
// disabled or hard (and why), statements and properties.
func TestExpand(t *testing.T) {
	datadriven.RunTest(t, "testdata/variant", func(t *testing.T, d *datadriven.TestData) string {
		f, err := ParseFile("t.json", []byte(d.Input))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		for _, v := range Expand(f) {
			writeVariantSummary(&b, v)
		}
		return b.String()
	})
}

func writeVariantSummary(b *strings.Builder, v *Variant) {
	fmt.Fprintf(b, "%s\n", v.ID())
	if v.Disabled {
		fmt.Fprintf(b, "  disabled\n")
	}
	if len(v.Hard) > 0 {
		fmt.Fprintf(b, "  hard: %s\n", strings.Join(v.Hard, "; "))
	}
	for _, s := range v.Statements {
		fmt.Fprintf(b, "  stmt: %s\n", s)
	}
	keys := make([]string, 0, len(v.Properties))
	for k := range v.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "  prop: %s=%s\n", k, v.Properties[k])
	}
	fmt.Fprintf(b, "  inputs=%d outputs=%d negative=%t\n", len(v.Inputs), len(v.Outputs), v.Expect != nil)
}
