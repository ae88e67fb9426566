package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
)

// TestAssertSchema: ASSERT [NOT EXISTS] SCHEMA against an external
// registry (franz-go's srfake) answers ksqlDB's assert_schema entity when
// the assertion holds and HTTP 417 with ksqlDB's message when it does not
// within its timeout; the REPL prints ksqlDB's CLI line.
func TestAssertSchema(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	id := registerSchema(t, fake, "users-value", sr.TypeJSON, srUserSchema)
	other := registerSchema(t, fake, "others-value", sr.TypeAvro, bidAvro)
	for _, c := range []struct {
		sql    string
		status int
		want   string
	}{
		{"ASSERT SCHEMA SUBJECT 'users-value';", 200,
			`[{"@type":"assert_schema","statementText":"ASSERT SCHEMA SUBJECT 'users-value'","subject":"users-value","id":null,"exists":true,"warnings":[]}]`},
		{fmt.Sprintf("ASSERT SCHEMA ID %d;", id), 200, fmt.Sprintf(`"subject":null,"id":%d,"exists":true`, id)},
		{fmt.Sprintf("ASSERT SCHEMA SUBJECT 'users-value' ID %d;", id), 200, `"exists":true`},
		{"ASSERT NOT EXISTS SCHEMA SUBJECT 'nope' TIMEOUT 200 MILLISECONDS;", 200, `"subject":"nope","id":null,"exists":false`},
		{"ASSERT SCHEMA SUBJECT 'nope' TIMEOUT 300 MILLISECONDS;", 417,
			`{"@type":"generic_error","error_code":41700,"message":"Schema with subject name nope does not exist"}`},
		{fmt.Sprintf("ASSERT SCHEMA SUBJECT 'users-value' ID %d TIMEOUT 100 MILLISECONDS;", other), 417,
			fmt.Sprintf(`"message":"Schema with subject name users-value id %d does not exist"`, other)},
		{fmt.Sprintf("ASSERT NOT EXISTS SCHEMA ID %d TIMEOUT 100 MILLISECONDS;", id), 417, fmt.Sprintf(`"message":"Schema with id %d exists"`, id)},
		{"ASSERT SCHEMA TIMEOUT 1 SECONDS;", 400, "ASSERT SCHEMA statements must include a subject name or an id"},
	} {
		status, body := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": c.sql})
		if status != c.status || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want %d with %s", c.sql, status, body, c.status, c.want)
		}
	}
	_, out, errOut := runBinaryInput(t, "ASSERT SCHEMA SUBJECT 'users-value';\n", "repl", "--history", filepath.Join(t.TempDir(), "h"), "--server", n.URL)
	if !strings.Contains(out, "Schema with subject users-value exists.") {
		t.Errorf("REPL ASSERT SCHEMA:\n%s\n%s", out, errOut)
	}
}
