package tests

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// TestAlterAssertConnectors: issue 23's grammar gaps through the binary.
// ALTER STREAM … ADD COLUMN is a recorded command (a restart keeps the
// column, and DESCRIBE shows the ALTER after the CREATE in the source's
// statement; a CSAS target is refused in ksqlDB's words); ASSERT TOPIC
// answers ksqlDB's assert_topic entity or a 417; the connector statements
// reach Kafka Connect at ksql.connect.url, here connecttest's fake Connect
// in this process (there is no real Connect on this machine), answer
// with the config values masked in statementText (QueryMask), and the
// REPL prints ksqlDB's CLI table. Restarted with a Connect that does not
// answer, then with no ksql.connect.url (ksqlDB's default URL, where
// nothing listens here), the statements fail saying so and the server
// keeps running.
func TestAlterAssertConnectors(t *testing.T) {
	fake := connecttest.New()
	defer fake.Close()
	config := writeConfig(t, "ksql.connect.url="+fake.URL+"\n")
	n := startNode(t, "--config", config)

	n.mustKsql("CREATE STREAM a (id INT KEY, col1 INT) WITH (KAFKA_TOPIC='a_topic', VALUE_FORMAT='JSON', PARTITIONS=2);")
	expectBody(t, n, "ALTER STREAM a ADD COLUMN col2 INT;", 200, `"commandId":"stream/A/alter"`, `"message":"Stream A altered."`)
	n.mustKsql("CREATE STREAM b AS SELECT * FROM a;")
	expectBody(t, n, "ALTER STREAM b ADD COLUMN col3 INT;", 400, "ALTER command is not supported for CREATE ... AS statements.")

	expectBody(t, n, "ASSERT TOPIC a_topic WITH (PARTITIONS=2);", 200,
		`[{"@type":"assert_topic","statementText":"ASSERT TOPIC a_topic WITH (PARTITIONS=2)","topicName":"a_topic","exists":true,"warnings":[]}]`)
	expectBody(t, n, "ASSERT TOPIC a_topic WITH (PARTITIONS=3) TIMEOUT 100 MILLISECONDS;", 417,
		`{"@type":"generic_error","error_code":41700,"message":"Mismatched configuration for topic a_topic: For config partitions, expected 3 got 2"}`)
	expectBody(t, n, "ASSERT NOT EXISTS TOPIC nope;", 200, `"topicName":"nope","exists":false`)

	expectBody(t, n, "CREATE SOURCE CONNECTOR lines WITH ('connector.class'='io.example.FileSource', 'file'='/tmp/x', 'topic'='a_topic');", 200,
		`"@type":"connector_info"`, `"config":{"connector.class":"io.example.FileSource","file":"/tmp/x","name":"LINES","topic":"a_topic"}`,
		`"statementText":"CREATE SOURCE CONNECTOR lines WITH ('connector.class'='io.example.FileSource', 'file'='[string]', 'topic'='[string]')"`)
	expectBody(t, n, "DESCRIBE CONNECTOR lines;", 200, `"@type":"connector_description"`, `"topics":["a_topic"]`, `"sources":[{"name":"A"`)
	expectBody(t, n, "CREATE SOURCE CONNECTOR lines WITH ('connector.class'='io.example.FileSource');", 409,
		`{"@type":"generic_error","error_code":40900,"message":"Connector LINES already exists"}`)
	_, out, errOut := runBinaryInput(t, "SHOW CONNECTORS;\n", "repl", "--history", filepath.Join(t.TempDir(), "h"), "--server", n.URL)
	if !strings.Contains(out, "Connector Name | Type   | Class                 | Status") || !strings.Contains(out, " LINES          | SOURCE | io.example.FileSource | RUNNING (1/1 tasks RUNNING) ") {
		t.Errorf("REPL SHOW CONNECTORS:\n%s\n%s", out, errOut)
	}
	expectBody(t, n, "DROP CONNECTOR lines;", 200, `{"@type":"drop_connector","statementText":"DROP CONNECTOR lines","connectorName":"LINES","warnings":[]}`)

	srv := httptest.NewServer(http.NotFoundHandler())
	gone := srv.URL
	srv.Close()
	rewrite(t, config, "ksql.connect.url="+gone+"\n")
	n.restart()
	expectBody(t, n, "DESCRIBE a EXTENDED;", 200, `"name":"COL2"`, `\nALTER STREAM a ADD COLUMN col2 INT"`)
	expectBody(t, n, "SHOW CONNECTORS;", 400, `{"@type":"generic_error","error_code":40000,"message":"Connect to `+gone+` failed: `)

	// Not configured: ksqlDB's default URL is tried, and the error says so
	// (an empty value in the file is the default, as every property's).
	rewrite(t, config, "ksql.connect.url=\n")
	n.restart()
	expectBody(t, n, "DROP CONNECTOR IF EXISTS lines;", 400,
		`{"@type":"generic_error","error_code":40000,"message":"Connect to http://localhost:8083 failed: `,
		`(ksql.connect.url is not set; its default, http://localhost:8083, was tried)"}`)
	n.mustKsql("SHOW STREAMS;")
}

// expectBody posts sql to /ksql and checks the status and that the body
// holds each of want.
func expectBody(t *testing.T, n *node, sql string, status int, want ...string) {
	t.Helper()
	got, body := n.post("/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": sql})
	for _, w := range want {
		if got != status || !strings.Contains(string(body), w) {
			t.Errorf("%s: %d %s\nwant %d with %s", sql, got, body, status, w)
			return
		}
	}
}

func rewrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(fmt.Errorf("rewriting %s: %w", path, err))
	}
}
