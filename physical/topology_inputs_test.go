package physical

import (
	"slices"
	"strings"
	"testing"
)

// TestInputTopicsAndBackEdges: InputTopics names every topic a query's
// tasks read, its internal topics included (a GROUP BY's repartition
// topic, a foreign-key join's subscription and response topics), each
// once and never a changelog; BackEdges counts the topics a later
// sub-topology writes for an earlier one (a foreign-key join's
// subscriptions: one), none for a GROUP BY, whose repartition topic
// goes forward.
func TestInputTopicsAndBackEdges(t *testing.T) {
	const sources = `
CREATE STREAM clicks (uid VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR) WITH (KAFKA_TOPIC='customers', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
CREATE TABLE owners (id INT PRIMARY KEY, cid INT) WITH (KAFKA_TOPIC='owners', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
`
	for _, c := range []struct {
		name, sql string
		inputs    []string // "app-…" for internal topics
		back      int
	}{
		{"filter", "CREATE STREAM o AS SELECT uid, page FROM clicks WHERE page <> 'x';", []string{"clicks"}, 0},
		{"group by", "CREATE TABLE p AS SELECT page, COUNT(*) AS n FROM clicks GROUP BY page;",
			[]string{"clicks", "app-Aggregate-GroupBy-repartition"}, 0},
		{"foreign-key join", "CREATE TABLE f AS SELECT w.id, c.name FROM owners w JOIN customers c ON w.cid = c.id;",
			[]string{"app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000012-topic", "customers", "owners", "app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000020-topic"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			topo := buildWith(t, sources, c.sql)
			got := topo.InputTopics()
			if !slices.Equal(got, c.inputs) {
				t.Errorf("InputTopics %v, want %v", got, c.inputs)
			}
			for _, topic := range got {
				if strings.HasSuffix(topic, "-changelog") {
					t.Errorf("InputTopics names changelog %s", topic)
				}
			}
			if n := topo.BackEdges(); n != c.back {
				t.Errorf("BackEdges %d, want %d", n, c.back)
			}
		})
	}
}
