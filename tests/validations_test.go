package tests

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
)

// validationRow is a refusal row of planner/testdata/validations, the
// table of ksqlDB's checks before a query runs.
type validationRow struct {
	rule, status, ksql string
	setup              []string
	stmt               string
}

var validationHead = regexp.MustCompile(`^validate rule=(\S+) status=(\S+)$`)

// readValidations returns the table's shared CREATEs and its rows that
// sqlstream refuses (status ✓ or ~).
func readValidations(t *testing.T) (string, []validationRow) {
	raw, err := os.ReadFile("../planner/testdata/validations")
	if err != nil {
		t.Fatal(err)
	}
	var shared string
	var rows []validationRow
	for _, block := range strings.Split(string(raw), "\n\n") {
		input, _, _ := strings.Cut(strings.TrimSpace(dropComments(block)), "\n----")
		head, body, _ := strings.Cut(input, "\n")
		if head == "create" {
			shared += body + "\n"
			continue
		}
		m := validationHead.FindStringSubmatch(head)
		if m == nil || (m[2] != "✓" && m[2] != "~") {
			continue
		}
		rows = append(rows, parseValidationRow(m[1], m[2], body))
	}
	return shared, rows
}

func dropComments(block string) string {
	var keep []string
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "#") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

func parseValidationRow(rule, status, body string) validationRow {
	row := validationRow{rule: rule, status: status}
	var stmts []string
	for _, line := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(line, "ksqlDB: "):
			row.ksql = strings.TrimPrefix(line, "ksqlDB: ")
		case strings.HasPrefix(line, "note: "):
		default:
			stmts = append(stmts, line)
		}
	}
	row.setup, row.stmt = stmts[:len(stmts)-1], stmts[len(stmts)-1]
	return row
}

// TestValidationsThroughBinary sends every refusal of ksqlDB's
// validation table (planner/testdata/validations) to the binary: a
// statement to /ksql, a query to /query-stream. Each is refused, with
// ksqlDB's message where the table says ✓, and the server goes on
// answering.
func TestValidationsThroughBinary(t *testing.T) {
	t.Parallel()
	shared, rows := readValidations(t)
	if len(rows) < 100 {
		t.Fatalf("read %d refusal rows from the validation table", len(rows))
	}
	n := startNode(t)
	n.mustKsql(shared)
	for _, row := range rows {
		t.Run(row.rule, func(t *testing.T) {
			for _, s := range row.setup {
				n.mustKsql(s)
			}
			status, msg := refusal(n, row.stmt)
			switch {
			case status == http.StatusOK:
				t.Errorf("%s accepted; ksqlDB refuses it: %s", row.stmt, row.ksql)
			case row.status == "✓" && !strings.Contains(strings.Join(strings.Fields(msg), " "), row.ksql):
				t.Errorf("%s: %d %q, want ksqlDB's %q", row.stmt, status, msg, row.ksql)
			}
		})
	}
	n.mustKsql("SHOW STREAMS;")
}

// refusal sends one statement and returns the status and the error's
// message.
func refusal(n *node, stmt string) (int, string) {
	if strings.HasPrefix(stmt, "SELECT") {
		status, raw := n.post("/query-stream", "application/vnd.ksqlapi.delimited.v1", map[string]any{"sql": stmt})
		return status, errorMessage(raw)
	}
	status, raw := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": stmt})
	return status, errorMessage(raw)
}

func errorMessage(raw []byte) string {
	var v struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &v) != nil || v.Message == "" {
		return string(raw)
	}
	return v.Message
}
