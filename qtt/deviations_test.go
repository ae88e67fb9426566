package qtt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMarkDeviation(t *testing.T) {
	list := []Deviation{{File: "suppress.json", Test: "lossy", Reason: "we emit every window"}}
	cases := []struct {
		file, name string
		status     Status
		want       Status
	}{
		{"ksql-qtt/suppress.json", "lossy", Failed, Deviated},
		{"suppress.json", "lossy - JSON", Passed, Deviated},
		{"suppress.json", "lossy and more", Failed, Failed},
		{"other.json", "lossy", Passed, Passed},
		{"suppress.json", "lossy", Skipped, Skipped},
	}
	for _, c := range cases {
		r := markDeviation(Result{Variant: &Variant{File: c.file, Name: c.name}, Status: c.status, Reason: "why"}, list)
		if r.Status != c.want {
			t.Errorf("%s/%s (%s): got %s, want %s", c.file, c.name, c.status, r.Status, c.want)
		}
		if r.Status == Deviated && (r.Reason != "we emit every window" || !strings.HasPrefix(r.Detail[0], "ran: "+c.status.String()+": why")) {
			t.Errorf("%s/%s: reason %q, detail %q", c.file, c.name, r.Reason, r.Detail)
		}
	}
}

// TestDeviationsNameExistingTests keeps the list honest: every entry
// names a test of ksqlDB's QTT files (when they are beside the project).
func TestDeviationsNameExistingTests(t *testing.T) {
	dir, err := filepath.Abs("../../shared/conformance/ksql-qtt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (the conformance data lives outside the project)", dir)
	}
	for _, d := range deviations() {
		f, err := ReadFile(filepath.Join(dir, d.File), d.File)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tc := range f.Tests {
			found = found || tc.Name == d.Test
		}
		if !found || d.Reason == "" {
			t.Errorf("deviation %s/%s: no such test, or no reason", d.File, d.Test)
		}
	}
}
