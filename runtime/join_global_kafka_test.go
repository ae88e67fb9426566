package runtime_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestGlobalJoinRebuildsBeforeProcessing joins a 4-partition stream with a
// 1-partition global table over the Kafka protocol, on a non-key column
// (no repartition topic is created). The table changes while the server
// is down, and again once its local state is lost: each time the query's
// global store is filled from the topic before the first order after the
// start is processed, so that order sees the new row.
func TestGlobalJoinRebuildsBeforeProcessing(t *testing.T) {
	r := newRig(t)
	r.exec(`CREATE STREAM orders (id VARCHAR KEY, region VARCHAR, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=4);
	CREATE GLOBAL TABLE regions (rid VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='regions', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	r.produce("regions", "r1", `{"NAME":"north"}`)
	out := r.exec(`CREATE STREAM by_region AS SELECT o.id, r.name, o.total
	  FROM orders o JOIN regions r ON o.region = r.rid;`)
	app := "default_query_" + *out[0].(api.CommandStatusEntity).CommandStatus.QueryID
	for _, id := range []string{"a", "b", "c", "d"} {
		r.produce("orders", id, `{"REGION":"r1","TOTAL":1}`)
	}
	expectRegion(t, r, "BY_REGION", 4, `d={"NAME":"north","TOTAL":1}`)
	if topics := r.topicNames(); strings.Contains(topics, "repartition") {
		t.Fatalf("a global join created a repartition topic: %s", topics)
	}
	r.awaitCommitted(app, "orders") // a global table's topic is read outside the group

	r.e.Close()
	r.e = nil
	r.produce("regions", "r1", `{"NAME":"north-2"}`)
	r.startEngine()
	r.produce("orders", "e", `{"REGION":"r1","TOTAL":2}`)
	expectRegion(t, r, "BY_REGION", 5, `e={"NAME":"north-2","TOTAL":2}`)
	r.awaitCommitted(app, "orders")

	r.e.Close()
	r.e = nil
	if err := os.RemoveAll(r.dir + "/state"); err != nil {
		t.Fatal(err)
	}
	r.tombstone("regions", "r1")
	r.produce("regions", "r2", `{"NAME":"south"}`)
	r.startEngine()
	r.produce("orders", "f", `{"REGION":"r1","TOTAL":3}`)
	r.produce("orders", "g", `{"REGION":"r2","TOTAL":4}`)
	expectRegion(t, r, "BY_REGION", 6, `g={"NAME":"south","TOTAL":4}`)
	if got := values(r.consume("BY_REGION", 6)); contains(got, `f={"NAME":"north-2","TOTAL":3}`) {
		t.Fatalf("an order joined a deleted region: %q", got)
	}
}

// expectRegion reads n records of topic and requires last among them.
func expectRegion(t *testing.T, r *rig, topic string, n int, last string) {
	t.Helper()
	got := values(r.consume(topic, n))
	if len(got) != n || !contains(got, last) {
		t.Fatalf("%s: got %q, want %d records with %s", topic, got, n, last)
	}
}

// topicNames lists the cluster's topics (SHOW ALL TOPICS).
func (r *rig) topicNames() string {
	var names []string
	for _, e := range r.exec(`SHOW ALL TOPICS;`) {
		if l, ok := e.(api.KafkaTopicsList); ok {
			for _, tp := range l.Topics {
				names = append(names, tp.Name)
			}
		}
	}
	return strings.Join(names, ",")
}

// tombstone produces a record with a null value.
func (r *rig) tombstone(topic, key string) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: topic, Key: []byte(key)}).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}
