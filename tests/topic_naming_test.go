package tests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TestKsqlDBTopicNaming: under sqlstream.internal.topic.naming=ksqldb a
// CTAS's consumer group and internal topics have ksqlDB's names
// (_confluent-ksql-<service id>query_<query id>-…-changelog and
// -repartition, as ksqlDB's QTT expects them); a restart runs the query
// on them again (its count goes on from its changelog and committed
// offsets), and a restart under the default naming keeps them for that
// query while a new query gets sqlstream's names.
func TestKsqlDBTopicNaming(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "sqlstream.internal.topic.naming=ksqldb\n"))
	n.mustKsql(`CREATE STREAM v (k VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='v', VALUE_FORMAT='JSON', PARTITIONS=1);
		CREATE TABLE c AS SELECT page, COUNT(*) AS n FROM v GROUP BY page;
		INSERT INTO v (k, page) VALUES ('u1', '/a');`)
	all := waitTopics(t, n, "SHOW ALL TOPICS;", "-changelog")
	m := regexp.MustCompile(` (_confluent-ksql-default_query_(CTAS_C_\d+))-Aggregate-Aggregate-Materialize-changelog `).FindStringSubmatch(all)
	if m == nil || !strings.Contains(all, " "+m[1]+"-Aggregate-GroupBy-repartition ") {
		t.Fatalf("SHOW ALL TOPICS under the ksqldb naming: %s", all)
	}
	group, id := m[1], m[2]
	if shown := topicNames(t, n, "SHOW TOPICS;"); strings.Contains(shown, group) {
		t.Fatalf("SHOW TOPICS lists the query's internal topics: %s", shown)
	}
	pageCount := func(want string) {
		t.Helper()
		eventually(t, "the count of /a", func() error {
			return same(counts(t, n, "SELECT * FROM c WHERE page = '/a';"), map[string]string{"/a": want})
		})
	}
	pageCount("1")
	if groups := listGroups(t, n); !slices.Contains(groups, group) {
		t.Fatalf("consumer groups %v lack %s", groups, group)
	}

	n.restart()
	n.mustKsql(`INSERT INTO v (k, page) VALUES ('u2', '/a');`)
	pageCount("2")

	for i, a := range n.args {
		if a == "--config" {
			n.args[i+1] = writeConfig(t, "")
		}
	}
	n.restart()
	n.mustKsql(`INSERT INTO v (k, page) VALUES ('u3', '/a');
		CREATE TABLE d AS SELECT k, COUNT(*) AS n FROM v GROUP BY k;`)
	pageCount("3")
	all = waitTopics(t, n, "SHOW ALL TOPICS;", "default_query_CTAS_D_")
	if strings.Contains(all, " default_query_"+id) || !strings.Contains(all, group+"-Aggregate-Aggregate-Materialize-changelog") {
		t.Fatalf("%s changed names under the default naming: %s", id, all)
	}
	if shown := topicNames(t, n, "SHOW TOPICS;"); strings.Contains(shown, "-changelog") || strings.Contains(shown, "-repartition") {
		t.Fatalf("SHOW TOPICS lists internal topics of either naming: %s", shown)
	}
}

// listGroups lists the broker's consumer groups.
func listGroups(t *testing.T, n *node) []string {
	t.Helper()
	gs, err := kadm.NewClient(kafkaClient(t, n.Kafka)).ListGroups(timeoutCtx(t))
	if err != nil {
		t.Fatal(fmt.Errorf("list groups: %w", err))
	}
	return gs.Groups()
}
