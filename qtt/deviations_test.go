package qtt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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
// names a test of ksqlDB's QTT or RQTT files (when they are beside the
// project).
func TestDeviationsNameExistingTests(t *testing.T) {
	root, err := filepath.Abs("../../shared/conformance")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "ksql-qtt")); err != nil {
		t.Skipf("skipping: %s not found (the conformance data lives outside the project)", root)
	}
	for _, d := range deviations() {
		names := conformanceTestNames(t, root, d.File)
		if !slices.Contains(names, d.Test) || d.Reason == "" {
			t.Errorf("deviation %s/%s: no such test, or no reason", d.File, d.Test)
		}
	}
}

// conformanceTestNames lists the tests of a QTT file, or else of the
// RQTT file of that name, or of a SQL test file ("--@test: name" lines).
func conformanceTestNames(t *testing.T, root, file string) []string {
	var names []string
	if strings.HasSuffix(file, ".sql") {
		src, err := os.ReadFile(findSQLTestFile(t, filepath.Join(root, "ksql-sqltests"), file))
		if err != nil {
			t.Fatalf("%s is not in ksql-sqltests: %v", file, err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--@test:"); ok {
				names = append(names, strings.TrimSpace(name))
			}
		}
		return names
	}
	if f, err := ReadFile(filepath.Join(root, "ksql-qtt", file), file); err == nil {
		for _, tc := range f.Tests {
			names = append(names, tc.Name)
		}
		return names
	}
	src, err := os.ReadFile(filepath.Join(root, "ksql-rqtt", file))
	if err != nil {
		t.Fatalf("%s is in neither ksql-qtt nor ksql-rqtt: %v", file, err)
	}
	var doc struct{ Tests []struct{ Name string } }
	if err := json.Unmarshal(src, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, tc := range doc.Tests {
		names = append(names, tc.Name)
	}
	return names
}

// findSQLTestFile is the path of the SQL test file of base name file in
// dir or one of its folders (query-upgrades/filters.sql).
func findSQLTestFile(t *testing.T, dir, file string) string {
	found := filepath.Join(dir, file)
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == file {
			found = path
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
