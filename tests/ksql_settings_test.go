package tests

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestKsqlConfigSettings: ksqlDB's settings through the binary. A server
// configured with ksqlDB settings sqlstream accepts with no effect
// starts; one configured with a setting sqlstream refuses does not, and
// says which and why. The output topic prefix names a CREATE … AS
// SELECT's topic (the server's, and a SET's over it; EXPLAIN shows it), and a restart with
// another prefix keeps each query on its topic; SET
// 'ksql.create.or.replace.enabled' is accepted, and false refuses CREATE
// OR REPLACE as ksqlDB does; ksql.insert.into.values.enabled=false
// refuses INSERT VALUES and /inserts-stream; SHOW PROPERTIES lists
// ksqlDB's settings with their defaults, and the unset ones as null.
func TestKsqlConfigSettings(t *testing.T) {
	t.Parallel()
	code, _, errOut := runBinary(t, "server", "--config",
		writeConfig(t, "ksql.security.extension.class=io.confluent.Ext\n"), "--data-dir", t.TempDir())
	if code != 2 || !strings.Contains(errOut, "ksql.security.extension.class") || !strings.Contains(errOut, "Java plugins") {
		t.Errorf("config with a refused setting: exit %d, stderr %q", code, errOut)
	}

	config := writeConfig(t, "ksql.connect.url=http://connect:8083\nksql.udfs.enabled=true\n"+
		"ksql.output.topic.name.prefix=srv_\nksql.insert.into.values.enabled=false\n")
	n := startNode(t, "--config", config)
	n.mustKsql("CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.mustKsql("SET 'auto.offset.reset'='earliest'; CREATE STREAM a AS SELECT * FROM s;")
	n.mustKsql("SET 'auto.offset.reset'='earliest'; SET 'ksql.output.topic.name.prefix'='dev_'; CREATE STREAM b AS SELECT * FROM s;")
	n.mustKsql("CREATE STREAM c WITH (KAFKA_TOPIC='c_topic') AS SELECT * FROM s;")
	produce(t, n.Kafka, "s", "\x00\x00\x00\x01", `{"V":7}`)
	for _, topic := range []string{"srv_A", "dev_B"} {
		if got := consume(t, n.Kafka, topic, 1); len(got) != 1 || !strings.HasSuffix(got[0], `{"V":7}`) {
			t.Errorf("topic %s: %v", topic, got)
		}
	}

	if plan := fmt.Sprint(n.mustKsql("SET 'ksql.output.topic.name.prefix'='dev_'; EXPLAIN CREATE STREAM d AS SELECT * FROM s;")); !strings.Contains(plan, "dev_D") {
		t.Errorf("EXPLAIN of a CREATE … AS SELECT under a prefix does not name topic dev_D: %s", plan)
	}

	// The command topic keeps each query's prefix: a restart with another
	// server prefix leaves the queries on their topics.
	if err := os.WriteFile(config, []byte("ksql.output.topic.name.prefix=new_\nksql.insert.into.values.enabled=false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.restart()
	streams := fmt.Sprint(n.mustKsql("SHOW STREAMS;"))
	for _, topic := range []string{"topic:srv_A ", "topic:dev_B ", "topic:c_topic "} {
		if !strings.Contains(streams, topic) {
			t.Errorf("after a restart with another prefix, SHOW STREAMS lacks %q: %s", topic, streams)
		}
	}

	for _, tc := range []struct{ sql, want string }{
		{"SET 'ksql.create.or.replace.enabled'='false'; CREATE OR REPLACE STREAM a AS SELECT * FROM s;",
			"Cannot add stream 'A': A stream with the same name already exists"},
		{"INSERT INTO s (id, v) VALUES (2, 8);", "The server has disabled INSERT INTO ... VALUES functionality"},
		{"SET 'ksql.lambdas.enabled'='false';", "Property 'ksql.lambdas.enabled' cannot be false in sqlstream: lambda functions are always allowed"},
	} {
		status, v := n.ksql(tc.sql, nil)
		if msg := fmt.Sprint(v); status != http.StatusBadRequest || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: status %d, body %v; want 400 mentioning %q", tc.sql, status, v, tc.want)
		}
	}
	n.mustKsql("SET 'ksql.create.or.replace.enabled'='true'; SHOW STREAMS;")

	resp, err := http.Post(n.URL+"/inserts-stream", "application/json", strings.NewReader(`{"target":"S"}`+"\n"+`{"ID":3,"V":9}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "disabled INSERT INTO ... VALUES") {
		t.Errorf("/inserts-stream with inserts disabled: %d %s", resp.StatusCode, body)
	}

	shown := fmt.Sprint(n.mustKsql("SHOW PROPERTIES;"))
	for _, want := range []string{"ksql.connect.url scope:KSQL value:http://localhost:8083", "ksql.query.pull.max.qps scope:KSQL value:2147483647",
		"ksql.create.or.replace.enabled scope:KSQL value:true", "ksql.output.topic.name.prefix scope:KSQL value:new_",
		"ksql.metrics.extension scope:KSQL value:<nil>"} { // unset: listed with a null value, as ksqlDB

		if !strings.Contains(shown, "name:"+want+"]") {
			t.Errorf("SHOW PROPERTIES lacks %q", want)
		}
	}
}

// TestPersistentQueryLimit: ksql.query.persistent.active.limit refuses a
// persistent query past it with ksqlDB's message, the server keeps
// running, and a restart with a lower limit still replays every query
// accepted before.
func TestPersistentQueryLimit(t *testing.T) {
	t.Parallel()
	config := writeConfig(t, "ksql.query.persistent.active.limit=2\n")
	n := startNode(t, "--config", config)
	n.mustKsql("CREATE STREAM s (id INT KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
	n.mustKsql("CREATE STREAM a AS SELECT * FROM s; CREATE STREAM b AS SELECT * FROM s;")
	const want = "would cause the number of active, persistent queries to exceed the configured limit"
	for _, sql := range []string{"CREATE STREAM c AS SELECT * FROM s;", "INSERT INTO a SELECT * FROM s;"} {
		status, v := n.ksql(sql, nil)
		if msg := fmt.Sprint(v); status != http.StatusBadRequest || !strings.Contains(msg, want) || !strings.Contains(msg, "Configured limit: 2.") {
			t.Errorf("%s: status %d, body %v; want 400 mentioning the limit", sql, status, v)
		}
	}
	if status, v := n.ksql("SET 'ksql.query.persistent.active.limit'='5';", nil); status != http.StatusBadRequest {
		t.Errorf("SET of the server's limit: status %d, body %v", status, v)
	}
	if err := os.WriteFile(config, []byte("ksql.query.persistent.active.limit=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n.restart()
	queries := fmt.Sprint(n.mustKsql("SHOW QUERIES;"))
	for _, id := range []string{"CSAS_A_", "CSAS_B_"} {
		if !strings.Contains(queries, id) {
			t.Errorf("after a restart with a lower limit, SHOW QUERIES lacks %s: %s", id, queries)
		}
	}
}
