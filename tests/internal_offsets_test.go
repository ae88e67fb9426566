package tests

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestRepartitionReadFromStartUnderLatest: a query's group reads its
// repartition topic from the start where it has no commit, even under
// auto.offset.reset=latest (the default), as Kafka Streams resets
// internal topics to earliest. The repartition topic of a GROUP BY gets
// records before the query's group has committed anything (here written
// before the query starts, in the shape its first sub-topology writes
// them: the group key in the key, the value {}); they stand for what
// another member's, or this member's, first sub-topology writes before
// the partition is assigned here. Reading "latest" skipped them and the
// counts came out short. Through the binary, on a separate broker
// process, under both guarantees (their runners share the group's
// options).
func TestRepartitionReadFromStartUnderLatest(t *testing.T) {
	t.Parallel()
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) {
			t.Parallel()
			repartitionFromStart(t, "ksql.streams.commit.interval.ms=100\nksql.streams.processing.guarantee="+guarantee+"\n")
		})
	}
}

func repartitionFromStart(t *testing.T, config string) {
	br := startBrokerProcess(t)
	srv := startServerOn(t, br.Kafka, "--config", writeConfig(t, config))
	srv.mustKsql(`CREATE STREAM clicks (uid VARCHAR KEY, page VARCHAR) WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	const repartition = "default_query_CTAS_PAGES_1-Aggregate-GroupBy-repartition"
	createTopic(t, br.Kafka, repartition, 1)
	cl := kafkaClient(t, br.Kafka)
	for _, page := range []string{"home", "cart", "home"} {
		r := &kgo.Record{Topic: repartition, Key: []byte(page), Value: []byte("{}")}
		if err := cl.ProduceSync(timeoutCtx(t), r).FirstErr(); err != nil {
			t.Fatalf("produce to %s: %v", repartition, err)
		}
	}
	srv.mustKsql(`CREATE TABLE pages AS SELECT page, COUNT(*) AS n FROM clicks GROUP BY page;`)
	if got := internalTopic(t, srv, "CTAS_PAGES_", "-repartition"); got != repartition {
		t.Fatalf("the query's repartition topic is %s, not %s: the test seeds the wrong topic", got, repartition)
	}
	srv.mustKsql(`INSERT INTO clicks (uid, page) VALUES ('u1', 'home');`)
	eventually(t, "counts with the repartition topic's earlier records", func() error {
		return same(counts(t, srv, "SELECT * FROM pages;"), map[string]string{"home": "3", "cart": "1"})
	})
}

// TestForeignKeyJoinOnBrokerProcess: a foreign-key table–table join
// under auto.offset.reset=latest (the default) on a separate broker
// process, its sides with different partition counts, answers every
// left row through its subscription and response topics and follows a
// change of the right row to every left row subscribed to it; the first
// pull query on the join, right after the INSERTs, already sees them.
func TestForeignKeyJoinOnBrokerProcess(t *testing.T) {
	t.Parallel()
	br := startBrokerProcess(t)
	srv := startServerOn(t, br.Kafka, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	srv.mustKsql(`CREATE TABLE customers (c_id BIGINT PRIMARY KEY, city VARCHAR) WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE orders (o_id BIGINT PRIMARY KEY, item VARCHAR, cust BIGINT) WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE shipped AS SELECT o_id, item, city FROM orders JOIN customers ON cust = c_id;`)
	srv.mustKsql(`INSERT INTO customers (c_id, city) VALUES (7, 'Oslo');
	INSERT INTO orders (o_id, item, cust) VALUES (1, 'pen', 7);
	INSERT INTO orders (o_id, item, cust) VALUES (2, 'ink', 7);`)
	// The first pull query waits until the query has caught up, its two
	// hops included: it goes round the sub-topologies once more for the
	// subscriptions the left side sends back to the right.
	if err := same(counts(t, srv, "SELECT * FROM shipped;"), map[string]string{"1": "penOslo", "2": "inkOslo"}); err != nil {
		t.Fatalf("the first pull query on the join: %v", err)
	}
	srv.mustKsql(`INSERT INTO customers (c_id, city) VALUES (7, 'Bergen');`)
	eventually(t, "the orders after the customer moved", func() error {
		return same(counts(t, srv, "SELECT * FROM shipped;"), map[string]string{"1": "penBergen", "2": "inkBergen"})
	})
}
