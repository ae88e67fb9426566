package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// qttFile is a two-test QTT file in ksqlDB's format: the first test's
// expectation holds, the second's does not.
const qttFile = `{
  "tests": [
    {
      "name": "uppercase a column",
      "statements": [
        "CREATE STREAM INPUT (ID INT KEY, V VARCHAR) WITH (kafka_topic='input', value_format='JSON');",
        "CREATE STREAM OUTPUT AS SELECT ID, UCASE(V) AS U FROM INPUT;"
      ],
      "inputs": [{"topic": "input", "key": 1, "value": {"V": "a"}}],
      "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"U": "A"}}]
    },
    {
      "name": "wrong expectation",
      "statements": [
        "CREATE STREAM INPUT (ID INT KEY, V VARCHAR) WITH (kafka_topic='input', value_format='JSON');",
        "CREATE STREAM OUTPUT AS SELECT ID, UCASE(V) AS U FROM INPUT;"
      ],
      "inputs": [{"topic": "input", "key": 1, "value": {"V": "a"}}],
      "outputs": [{"topic": "OUTPUT", "key": 1, "value": {"U": "B"}}]
    }
  ]
}`

// TestBinaryRunsQTT: `sqlstream test` is wired to the test runner; with
// --strict a failing variant makes the exit code 1.
func TestBinaryRunsQTT(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ucase.json")
	if err := os.WriteFile(path, []byte(qttFile), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBinary(t, "test", "--strict", path)
	if code != 1 || !strings.Contains(out, "1 passed, 1 failed") || !strings.Contains(out, "wrong expectation") {
		t.Fatalf("sqlstream test --strict: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runBinary(t, "test", "--filter", "uppercase", "--strict", path)
	if code != 0 || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("sqlstream test --filter uppercase: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
