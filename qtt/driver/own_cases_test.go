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

// TestOwnCasesOverBroker runs the own cases written for the --broker
// driver (testdata/broker_*.json) end to end over a broker, strictly: a
// foreign-key join's and a GROUP BY's outputs are read only once the
// records in their internal topics are processed too, records of two
// topics are processed in the order the test gives them, and a query a
// record fails is that record's error.
func TestOwnCasesOverBroker(t *testing.T) {
	files, err := filepath.Glob("testdata/broker_*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/broker_*.json: %v", err)
	}
	var out, errs bytes.Buffer
	if code := qtt.Main(append([]string{"--strict", "--broker", "-v"}, files...), &out, &errs, New, nil); code != 0 {
		t.Fatalf("sqlstream test --broker exited %d:\n%s\n%s", code, out.String(), errs.String())
	}
}
