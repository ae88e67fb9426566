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

// TestBinaryRunsQTT: `sqlstream test` is wired to the test runner; a
// failing variant makes the exit code 1, with or without --strict.
func TestBinaryRunsQTT(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ucase.json")
	if err := os.WriteFile(path, []byte(qttFile), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBinary(t, "test", "--strict", path)
	if code != 1 || !strings.Contains(out, "1 passed, 1 failed") || !strings.Contains(out, "wrong expectation") {
		t.Fatalf("sqlstream test --strict: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runBinary(t, "test", path)
	if code != 1 || !strings.Contains(out, "ucase.json  QTT") || !strings.Contains(out, "1 passed, 1 failed") {
		t.Fatalf("sqlstream test: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runBinary(t, "test", "--filter", "uppercase", "--strict", path)
	if code != 0 || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("sqlstream test --filter uppercase: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// sqlTestFile is a SQL test file in ksqlDB's run-ksql-test format: the
// first test's assertions hold, the second's ASSERT VALUES does not.
const sqlTestFile = `--@test: uppercase a column
CREATE STREAM input (id INT KEY, v VARCHAR) WITH (kafka_topic='input', value_format='JSON');
CREATE STREAM output AS SELECT id, UCASE(v) AS u FROM input;
ASSERT STREAM output (id INT KEY, u VARCHAR) WITH (kafka_topic='OUTPUT', value_format='JSON');
INSERT INTO input (rowtime, id, v) VALUES (1, 1, 'a');
ASSERT VALUES output (rowtime, id, u) VALUES (1, 1, 'A');

--@test: wrong expectation
CREATE STREAM input (id INT KEY, v VARCHAR) WITH (kafka_topic='input', value_format='JSON');
CREATE STREAM output AS SELECT id, UCASE(v) AS u FROM input;
INSERT INTO input (id, v) VALUES (1, 'a');
ASSERT VALUES output (id, u) VALUES (1, 'B');
`

// TestBinaryRunsSQLTests: `sqlstream test` reads a .sql file as ksqlDB's
// SQL test format, says so, and exits 1 when a test fails (0 when the
// filter leaves only the passing one).
func TestBinaryRunsSQLTests(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ucase.sql")
	if err := os.WriteFile(path, []byte(sqlTestFile), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBinary(t, "test", path)
	if code != 1 || !strings.Contains(out, "ucase.sql  SQL") || !strings.Contains(out, "1 passed, 1 failed") ||
		!strings.Contains(out, "FAIL ucase.sql/wrong expectation: step 4 of 4 (line 12) failed: Expected record does not match actual.") {
		t.Fatalf("sqlstream test: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runBinary(t, "test", "--filter", "uppercase", path)
	if code != 0 || !strings.Contains(out, "1 passed, 0 failed") {
		t.Fatalf("sqlstream test --filter uppercase: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestBinaryRunsQTTOverBroker: `sqlstream test --broker` runs the
// driver's own broker cases (qtt/driver/testdata/broker_order.json) end
// to end over the Kafka protocol and all of them pass: a foreign-key
// join (two hops through its subscription and response topics) and a
// GROUP BY (its repartition topic) give every output, records of two
// topics are processed in the order the file gives them, and a record
// that fails its query is the test's expected exception.
func TestBinaryRunsQTTOverBroker(t *testing.T) {
	t.Parallel()
	path, err := filepath.Abs("../qtt/driver/testdata/broker_order.json")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runBinary(t, "test", "--broker", "--strict", "-v", path)
	if code != 0 || !strings.Contains(out, "3 passed, 0 failed") {
		t.Fatalf("sqlstream test --broker: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
