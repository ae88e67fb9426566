package testdriver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/qtt"
)

// strictFiles are the ksqlDB QTT files every easy variant of which passes:
// `make test` holds sqlstream to them (a regression fails the build). Add
// a file here once it passes completely.
var strictFiles = strings.Fields(`
array-remove array-set-functions array arraycontains arrayjoin attr average-udaf average
between binary-arithmetic binary-comparison bytes-and-strings bytes-lpad-rpad case-expression
cast chr collect-list collect-set comparison-expression concat correlation-udaf count-distinct
create-struct create_array create_map delimited earliest-offset-udaf elt-field encode
floating-point formats geodistance histogram in initcap instr json json_array_contains
json_array_length json_concat json_items json_records kafka latest-offset-udaf least len like
literals map md5 more-complex-struct null operators project-filter regex replace serdes
session-windows source-stream source-table split-to-map split standarddeviation
string-lpad-rpad string stringtimestamp substring sum system-columns table timestamp
timestampformat to_json_string topk-distinct topk-group-by tumbling-windows udaf udf url where
window-bounds`)

// conformanceDir is ksqlDB's QTT folder beside the project (not part of
// it; see ../shared/conformance/README.md).
func conformanceDir(t *testing.T) string {
	dir, err := filepath.Abs("../../../shared/conformance/ksql-qtt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("skipping: %s not found (the conformance data lives outside the project)", dir)
	}
	return dir
}

// TestConformanceStrict runs the strict QTT files on the in-memory driver:
// every easy variant must pass.
func TestConformanceStrict(t *testing.T) {
	dir := conformanceDir(t)
	args := []string{"--only-easy", "--strict"}
	for _, f := range strictFiles {
		args = append(args, filepath.Join(dir, f+".json"))
	}
	var out, errs bytes.Buffer
	if code := qtt.Main(args, &out, &errs, New); code != 0 {
		t.Fatalf("sqlstream test exited %d:\n%s\n%s", code, out.String(), errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	t.Log(lines[len(lines)-1])
}
