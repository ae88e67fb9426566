package runtime_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/internal/qttmode"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestQTTNaming: with WithQTT's naming query ids count the queries from 0
// and internal topics carry ksqlDB's `_confluent-ksql-` prefix; without
// it ids end with the command's sequence number and no prefix is added.
func TestQTTNaming(t *testing.T) {
	const sql = `CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE STREAM big AS SELECT * FROM s WHERE v > 1;
	CREATE TABLE n AS SELECT v, COUNT(*) AS c FROM s GROUP BY v;`
	for _, c := range []struct {
		props          map[string]string
		opts           []runtime.Option
		ids, changelog string
	}{
		{nil, nil, "[CSAS_BIG_1 CTAS_N_2]", "default_query_CTAS_N_2-Aggregate-Aggregate-Materialize-changelog"},
		{nil, []runtime.Option{runtime.WithServiceID("svc."), runtime.WithQTT(qttmode.Mode{Naming: true})}, "[CSAS_BIG_0 CTAS_N_1]",
			"_confluent-ksql-svc.query_CTAS_N_1-Aggregate-Aggregate-Materialize-changelog"},
		// The server properties: ksqlDB's naming keeps the ids, adds the
		// prefix; ksql.persistent.prefix replaces query_.
		{map[string]string{props.TopicNaming: "ksqldb"}, nil, "[CSAS_BIG_1 CTAS_N_2]",
			"_confluent-ksql-default_query_CTAS_N_2-Aggregate-Aggregate-Materialize-changelog"},
		{map[string]string{props.TopicNaming: "ksqldb", props.PersistentPrefix: "pq_"}, nil, "[CSAS_BIG_1 CTAS_N_2]",
			"_confluent-ksql-default_pq_CTAS_N_2-Aggregate-Aggregate-Materialize-changelog"},
	} {
		eng, err := runtime.NewTestEngine(c.props, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		ents, err := eng.ExecuteStatement(sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range ents {
			if cs, ok := e.(api.CommandStatusEntity); ok && cs.CommandStatus.QueryID != nil {
				ids = append(ids, *cs.CommandStatus.QueryID)
			}
		}
		if fmt.Sprint(ids) != c.ids {
			t.Errorf("query ids %v, want %s", ids, c.ids)
		}
		var topics []string
		for name := range eng.Topics() {
			topics = append(topics, name)
		}
		sort.Strings(topics)
		if !strings.Contains(strings.Join(topics, " "), c.changelog) {
			t.Errorf("topics %v lack %s", topics, c.changelog)
		}
		eng.Close()
	}
}

// TestNamingPropertiesChecked: a naming the table does not know, or a
// persistent prefix no topic name may hold, stops the engine from
// starting, naming the property.
func TestNamingPropertiesChecked(t *testing.T) {
	for _, c := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{props.TopicNaming: "kafka"}, props.TopicNaming},
		{map[string]string{props.PersistentPrefix: "my query/"}, props.PersistentPrefix},
	} {
		eng, err := runtime.NewTestEngine(c.props)
		if err == nil {
			eng.Close()
			t.Fatalf("%v: the engine started", c.props)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v does not name %s", c.props, err, c.want)
		}
	}
}

// TestDerivedTopicNamesChecked: a CREATE TABLE AS SELECT whose internal
// topic names would pass Kafka's 249 characters is refused before
// anything is recorded: no table in the catalog, no topic, no command;
// the same query under a short name then runs.
func TestDerivedTopicNamesChecked(t *testing.T) {
	eng := newTestEngine(t, nil)
	if _, err := eng.ExecuteStatement("CREATE STREAM s (id VARCHAR KEY, v INT) WITH (kafka_topic='s', value_format='JSON', partitions=1);", nil); err != nil {
		t.Fatal(err)
	}
	long := "T" + strings.Repeat("X", 200)
	_, err := eng.ExecuteStatement("CREATE TABLE "+long+" AS SELECT v, COUNT(*) AS c FROM s GROUP BY v;", nil)
	if err == nil || !strings.Contains(err.Error(), "topic name is") || !strings.Contains(err.Error(), "the maximum is 249") ||
		!strings.Contains(err.Error(), "Choose a shorter name") {
		t.Fatalf("long name: %v", err)
	}
	ents, err := eng.ExecuteStatement("SHOW TABLES;", nil)
	if err != nil || len(ents[0].(api.TablesList).Tables) != 0 {
		t.Fatalf("tables after the refusal: %+v %v", ents, err)
	}
	for topic := range eng.Topics() {
		if strings.Contains(topic, long) {
			t.Errorf("topic %s left behind", topic)
		}
	}
	if _, err := eng.ExecuteStatement("CREATE TABLE t AS SELECT v, COUNT(*) AS c FROM s GROUP BY v;", nil); err != nil {
		t.Fatalf("short name: %v", err)
	}
}
