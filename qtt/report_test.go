package qtt

import (
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestReport renders results given one per line as
// "file | name | status | reason | detail; detail…"; "report v" is verbose.
func TestReport(t *testing.T) {
	datadriven.RunTest(t, "testdata/report", func(t *testing.T, d *datadriven.TestData) string {
		results := parseResults(t, d.Input)
		var b strings.Builder
		switch d.Cmd {
		case "report":
			WriteReport(&b, results, d.HasArg("v"))
		case "json":
			if err := WriteJSON(&b, results); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown command %q", d.Cmd)
		}
		return b.String()
	})
}

func parseResults(t *testing.T, input string) []Result {
	var out []Result
	for _, line := range strings.Split(input, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "|")
		for len(f) < 5 {
			f = append(f, "")
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		r := Result{Variant: &Variant{File: f[0], Name: f[1], Format: QTTFormat}, Reason: f[3]}
		switch f[2] {
		case "passed":
			r.Status = Passed
		case "failed":
			r.Status = Failed
		case "skipped":
			r.Status = Skipped
		case "deviated":
			r.Status = Deviated
		default:
			t.Fatalf("bad status %q", f[2])
		}
		if f[4] != "" {
			r.Detail = strings.Split(f[4], "; ")
		}
		out = append(out, r)
	}
	return out
}

func TestFlatten(t *testing.T) {
	if got := flatten("a  b\r\nc\n"); got != "a  b ⏎ c" {
		t.Fatalf("flatten = %q", got)
	}
}
