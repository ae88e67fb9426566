package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// grammarRow is one + row of sql/parser/testdata/grammar: statements
// ksqlDB's grammar accepts, and the error the row says a server answers
// them with ("-- server: text" at its end; "" when they run).
type grammarRow struct {
	file, rule, sql, expect string
}

var serverNote = regexp.MustCompile(`--\s*server:\s*(.*)$`)

// grammarRows reads the + rows of the grammar table, in file order.
func grammarRows(t *testing.T) []grammarRow {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "sql", "parser", "testdata", "grammar")
	var rows []grammarRow
	for _, file := range []string{"statements", "clauses", "lexical"} {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		rule, input := "", false
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(line, "grammar rule="):
				rule, input = strings.TrimPrefix(line, "grammar rule="), true
			case line == "----":
				input = false
			case input && strings.HasPrefix(line, "+ "):
				r := grammarRow{file: file, rule: rule, sql: strings.TrimPrefix(line, "+ ")}
				if m := serverNote.FindStringSubmatchIndex(r.sql); m != nil {
					r.expect = strings.TrimSpace(r.sql[m[2]:m[3]])
					r.sql = strings.TrimSpace(r.sql[:m[0]])
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// TestGrammarTableThroughBinary sends every + row of the grammar table to
// one running server, in an order that works: the rows that create a
// source or type first (each after a DROP … IF EXISTS of its name, so
// the rows that reuse a name each run), then a setup creating what the
// other rows name, then those rows in file order, TERMINATE and DROP rows
// last. The connector rows reach a fake Kafka Connect (connecttest).
//
// No row may fail with a parse error. A row ending in a SELECT or PRINT
// sent to /ksql answers "use /query" (40002), which it does only once
// parsed (so its statements do not run). Any other
// row that fails is sent again behind a statement that fails when it
// runs (DROP of a missing stream): a request is parsed whole before its
// first statement runs, so that failure, not a syntax error, must come
// back. A row that fails when it runs must say so: "-- server: text" at
// its end, the text of the error.
func TestGrammarTableThroughBinary(t *testing.T) {
	fake := connecttest.New()
	defer fake.Close()
	n := startNode(t, "--config", writeConfig(t, "ksql.connect.url="+fake.URL+"\n"))
	n.mustKsql("CREATE STREAM topic_t (v INT) WITH (KAFKA_TOPIC='t', VALUE_FORMAT='JSON', PARTITIONS=2);") // the topic the CREATE rows name
	creates, rest, drops := orderGrammarRows(grammarRows(t))
	if len(creates)+len(rest)+len(drops) < 100 {
		t.Fatalf("read %d + rows of the grammar table", len(creates)+len(rest)+len(drops))
	}
	for _, r := range creates {
		if m := createdName.FindStringSubmatch(r.sql); m != nil {
			n.mustKsql("DROP " + strings.ToUpper(m[1]) + " IF EXISTS " + m[2] + ";")
		}
		checkGrammarRow(t, n, r)
	}
	n.mustKsql(grammarSetup)
	for _, r := range append(rest, drops...) {
		checkGrammarRow(t, n, r)
	}
}

// createdName finds what a CREATE row creates: its kind and name.
var createdName = regexp.MustCompile(`(?i)^CREATE\s+(?:OR\s+REPLACE\s+)?(?:SOURCE\s+)?(STREAM|TABLE|TYPE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\S+)`)

// orderGrammarRows splits the rows into those creating a source or type
// (not AS SELECT), the TERMINATE and DROP rows, and the rest.
func orderGrammarRows(rows []grammarRow) (creates, rest, drops []grammarRow) {
	for _, r := range rows {
		up := strings.ToUpper(r.sql)
		switch {
		case createdName.MatchString(r.sql) && !strings.Contains(up, " AS SELECT") && !strings.Contains(up, " AS STRUCT") && !strings.Contains(up, "; "):
			creates = append(creates, r)
		case strings.HasPrefix(up, "DROP STREAM") || strings.HasPrefix(up, "DROP TABLE") || strings.HasPrefix(up, "TERMINATE"):
			drops = append(drops, r)
		default:
			rest = append(rest, r)
		}
	}
	return creates, rest, drops
}

// checkGrammarRow sends one row and checks its answer.
func checkGrammarRow(t *testing.T, n *node, r grammarRow) {
	t.Helper()
	status, body := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": r.sql})
	msg := errorMessage(body)
	switch {
	case status == http.StatusOK && r.expect == "":
		return
	case status == http.StatusOK:
		t.Errorf("%s/%s: %s ran; the row says it fails with %q", r.file, r.rule, r.sql, r.expect)
		return
	case endsWithQuery(r.sql):
		if !strings.Contains(string(body), `"error_code":40002`) {
			t.Errorf("%s/%s: %s: %d %s, want the query endpoint's 40002 (parsed)", r.file, r.rule, r.sql, status, body)
		}
		return
	}
	if !parsedOnServer(n, r.sql) {
		t.Errorf("%s/%s: %s: a parse error on the server: %s", r.file, r.rule, r.sql, msg)
		return
	}
	if r.expect == "" || !strings.Contains(msg, r.expect) {
		t.Errorf("%s/%s: %s failed on the server with %q; the row says %q", r.file, r.rule, r.sql, msg, r.expect)
	}
}

// endsWithQuery: a row whose last statement is a SELECT or PRINT, which
// /ksql refuses with "use /query" (40002) once it parsed the statements
// up to it; the statements before it do not run.
func endsWithQuery(sql string) bool {
	var last []string
	for _, st := range strings.Split(sql, ";") {
		if f := strings.Fields(strings.ToUpper(st)); len(f) > 0 && f[0] != "--" {
			last = f
		}
	}
	return len(last) > 0 && (last[0] == "SELECT" || last[0] == "PRINT")
}

// parsedOnServer says whether the server parses sql: sent behind a
// statement that fails when it runs, the answer is that failure.
func parsedOnServer(n *node, sql string) bool {
	const probe = "DROP STREAM grammar_probe_missing;\n"
	status, body := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": probe + sql})
	return status == http.StatusBadRequest && strings.Contains(errorMessage(body), "Stream GRAMMAR_PROBE_MISSING does not exist.")
}

// grammarSetup creates what the rows that run name: a stream S with the
// columns they insert into and alter (B and the lower-case b and c the
// quoted names of the columns rule name), streams A, B and C, a table T,
// and S2 reading S.
const grammarSetup = `
DROP STREAM IF EXISTS s; DROP TABLE IF EXISTS t;
CREATE STREAM s (id INT KEY, v STRING, a INT, b ARRAY<INT>, ` + "`b` INT, `c` INT" + `)
  WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE t (id INT PRIMARY KEY, v STRING) WITH (KAFKA_TOPIC='t_table', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM a (k INT KEY, v INT) WITH (KAFKA_TOPIC='a', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM b (k INT KEY, v INT) WITH (KAFKA_TOPIC='b', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM c (k INT KEY, v INT) WITH (KAFKA_TOPIC='c', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE STREAM s2 AS SELECT * FROM s;
`
