package driver

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/sqlstream/sqlstream/qtt"
)

// TestOwnCases runs sqlstream's own QTT-format files in testdata (cases
// ksqlDB's suite does not cover, written for this project) strictly.
func TestOwnCases(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.json: %v", err)
	}
	var out, errs bytes.Buffer
	if code := qtt.Main(append([]string{"--strict"}, files...), &out, &errs, New, nil); code != 0 {
		t.Fatalf("sqlstream test exited %d:\n%s\n%s", code, out.String(), errs.String())
	}
}
