package runtime_test

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// TestConnectorStates: the states Connect reports reach SHOW CONNECTORS
// as ksqlDB summarizes them (a FAILED connector by its state, a RUNNING
// one with no running task as WARNING) and DESCRIBE CONNECTOR with the
// traces; a Connect older than 2.5, without the topics endpoint, still
// describes the connector.
func TestConnectorStates(t *testing.T) {
	fake := connecttest.New()
	defer fake.Close()
	eng, err := runtime.NewTestEngine(map[string]string{"ksql.connect.url": fake.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, sql := range []string{
		"CREATE SOURCE CONNECTOR a WITH ('connector.class'='io.example.FileSource', 'file'='/f', 'topic'='t');",
		"CREATE SINK CONNECTOR b WITH ('connector.class'='io.example.FileSink', 'topics'='t');",
	} {
		if got := restText(eng.ExecuteStatement(sql, nil)); !strings.Contains(got, `"@type":"connector_info"`) {
			t.Fatalf("%s: %s", sql, got)
		}
	}
	fake.SetState("A", "FAILED", "org.apache.kafka.connect.errors.ConnectException: boom", "FAILED")
	fake.SetState("B", "RUNNING", "", "FAILED", "UNASSIGNED")
	got := restText(eng.ExecuteStatement("SHOW CONNECTORS;", nil))
	for _, want := range []string{`{"name":"A","type":"source","className":"io.example.FileSource","state":"FAILED"}`,
		`{"name":"B","type":"sink","className":"io.example.FileSink","state":"WARNING (0/2 tasks RUNNING)"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("SHOW CONNECTORS lacks %s:\n%s", want, got)
		}
	}
	fake.WithoutTopics()
	got = restText(eng.ExecuteStatement("DESCRIBE CONNECTOR a;", nil))
	for _, want := range []string{`"@type":"connector_description"`, `"state":"FAILED"`, `"trace":"org.apache.kafka.connect.errors.ConnectException: boom"`} {
		if !strings.Contains(got, want) {
			t.Errorf("DESCRIBE CONNECTOR lacks %s:\n%s", want, got)
		}
	}
}
