package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Listings and messages as ksqlDB's, through the binary: SHOW TOPICS
// hides a query's changelog and repartition topics (SHOW ALL TOPICS lists
// them), PRINT starts with its key/value format header, and
// ksql.variable.substitution.enable=false leaves ${name} as written.
func TestListingsAsKsqlDB(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM v (k VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='v', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE TABLE c AS SELECT page, COUNT(*) AS n FROM v GROUP BY page;
		INSERT INTO v (k, page) VALUES ('u1', '/a');`)

	all := waitTopics(t, n, "SHOW ALL TOPICS;", "-changelog")
	if !strings.Contains(all, "-repartition") {
		t.Fatalf("SHOW ALL TOPICS lacks the repartition topic: %s", all)
	}
	shown := topicNames(t, n, "SHOW TOPICS;")
	if strings.Contains(shown, "-changelog") || strings.Contains(shown, "-repartition") || strings.Contains(shown, "command_topic") ||
		!strings.Contains(shown, " v ") || !strings.Contains(shown, "ksql_processing_log") {
		t.Fatalf("SHOW TOPICS: %s", shown)
	}

	status, body := n.post("/query", "application/vnd.ksql.v1+json", map[string]any{"ksql": "PRINT 'v' FROM BEGINNING LIMIT 1;"})
	if status != http.StatusOK || !strings.Contains(string(body), "Key format: KAFKA_STRING\nValue format: JSON or KAFKA_STRING\nrowtime: ") {
		t.Fatalf("PRINT: %d %q", status, body)
	}

	body, _ = json.Marshal(map[string]any{"ksql": "CREATE STREAM lit AS SELECT * FROM v WHERE page = '${tag}';",
		"streamsProperties": map[string]any{"ksql.variable.substitution.enable": "false"}, "sessionVariables": map[string]any{"tag": "/a"}})
	var req map[string]any
	_ = json.Unmarshal(body, &req)
	if status, raw := n.post("/ksql", "application/vnd.ksql.v1+json", req); status != http.StatusOK {
		t.Fatalf("CREATE with substitution off: %d %s", status, raw)
	}
	_, queries := n.ksql("SHOW QUERIES;", nil)
	if js, _ := json.Marshal(queries); !strings.Contains(string(js), "page = '${tag}'") {
		t.Fatalf("the query text lost ${tag}: %s", js)
	}
}

// topicNames lists a SHOW TOPICS response's names as " a b c ".
func topicNames(t *testing.T, n *node, sql string) string {
	t.Helper()
	_, v := n.ksql(sql, nil)
	js, _ := json.Marshal(v)
	var ents []struct{ Topics []struct{ Name string } }
	if err := json.Unmarshal(js, &ents); err != nil || len(ents) != 1 {
		t.Fatalf("%s: %s (%v)", sql, js, err)
	}
	var b strings.Builder
	b.WriteString(" ")
	for _, tp := range ents[0].Topics {
		b.WriteString(tp.Name + " ")
	}
	return b.String()
}

// waitTopics waits until a listing names a topic containing part (the
// query creates its internal topics as it starts).
func waitTopics(t *testing.T, n *node, sql, part string) string {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		names := topicNames(t, n, sql)
		if strings.Contains(names, part) {
			return names
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never listed a %q topic: %s", sql, part, names)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SHOW TOPICS EXTENDED through the binary counts each topic's consumers
// as ksqlDB does, from the embedded broker's consumer groups: two
// queries on a two-partition topic are two groups holding four
// partition assignments; the CLI prints ksqlDB's columns.
func TestShowTopicsExtendedCountsConsumers(t *testing.T) {
	t.Parallel()
	n := startNode(t)
	n.mustKsql(`CREATE STREAM ev (k VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=2);
		CREATE STREAM ev_a AS SELECT * FROM ev WHERE page = '/a';
		CREATE TABLE ev_n AS SELECT page, COUNT(*) AS n FROM ev GROUP BY page;`)
	eventually(t, "ev's consumers", func() error {
		c := extendedTopics(t, n)["ev"]
		if c != [3]int{2, 4, 2} {
			return fmt.Errorf("ev: partitions, consumers, groups = %v", c)
		}
		return nil
	})
	if c := extendedTopics(t, n)["EV_A"]; c != [3]int{2, 0, 0} {
		t.Fatalf("EV_A, read by no query: %v", c)
	}
	_, out, errOut := runBinaryInput(t, "SHOW TOPICS EXTENDED;\n", "repl", "--history", filepath.Join(t.TempDir(), "h"), "--server", n.URL)
	if !regexp.MustCompile(`Kafka Topic +\| Partitions \| Partition Replicas \| Consumers \| ConsumerGroups`).MatchString(out) ||
		!regexp.MustCompile(`\n ev +\| 2 +\| 1 +\| 4 +\| 2 `).MatchString(out) {
		t.Fatalf("the CLI's SHOW TOPICS EXTENDED:\n%s\nstderr: %s", out, errOut)
	}
}

// extendedTopics maps SHOW TOPICS EXTENDED's topics to their partitions,
// consumers and consumer groups.
func extendedTopics(t *testing.T, n *node) map[string][3]int {
	t.Helper()
	_, v := n.ksql("SHOW TOPICS EXTENDED;", nil)
	js, _ := json.Marshal(v)
	var ents []struct {
		Type   string `json:"@type"`
		Topics []struct {
			Name               string
			ReplicaInfo        []int
			ConsumerCount      int
			ConsumerGroupCount int
		}
	}
	if err := json.Unmarshal(js, &ents); err != nil || len(ents) != 1 || ents[0].Type != "kafka_topics_extended" {
		t.Fatalf("SHOW TOPICS EXTENDED: %s (%v)", js, err)
	}
	out := map[string][3]int{}
	for _, tp := range ents[0].Topics {
		out[tp.Name] = [3]int{len(tp.ReplicaInfo), tp.ConsumerCount, tp.ConsumerGroupCount}
	}
	return out
}
