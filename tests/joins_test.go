package tests

import (
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// TestOrdersJoinCustomers runs the orders ⋈ customers enrichment through
// the binary and the embedded broker: orders keyed by their own id join
// customers on customer_id, so they are re-keyed through the query's
// Join-repartition topic first. An order placed before its customer
// exists is dropped by the inner join and kept with a null name by the
// left join; results are read back from the sink topics.
func TestOrdersJoinCustomers(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM orders (id VARCHAR KEY, customer_id VARCHAR, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE STREAM enriched AS SELECT o.customer_id, c.name, o.id AS order_id, o.total
	  FROM orders o JOIN customers c ON o.customer_id = c.id;
	CREATE STREAM enriched_all AS SELECT o.customer_id, c.name, o.id AS order_id, o.total
	  FROM orders o LEFT JOIN customers c ON o.customer_id = c.id;`)

	produce(t, n.Kafka, "orders", "o1", `{"CUSTOMER_ID":"c1","TOTAL":5}`)
	early := `c1={"NAME":null,"ORDER_ID":"o1","TOTAL":5}`
	if got := consume(t, n.Kafka, "ENRICHED_ALL", 1); fmt.Sprint(got) != fmt.Sprint([]string{early}) {
		t.Fatalf("left join before the customer exists: got %v, want %s", got, early)
	}
	// both queries have processed o1 (their repartition topics included)
	// before the customer exists: the inner join drops it
	awaitQueriesCommitted(t, n.Kafka, "orders")
	produce(t, n.Kafka, "customers", "c1", `{"NAME":"ada"}`)
	// the customer is in both joins' stores (their changelogs have it) before the next order
	consume(t, n.Kafka, "default_query_CSAS_ENRICHED_2-KafkaTopic_Right-Reduce-changelog", 1)
	consume(t, n.Kafka, "default_query_CSAS_ENRICHED_ALL_3-KafkaTopic_Right-Reduce-changelog", 1)
	produce(t, n.Kafka, "orders", "o2", `{"CUSTOMER_ID":"c1","TOTAL":7}`)

	joined := `c1={"NAME":"ada","ORDER_ID":"o2","TOTAL":7}`
	if got := consume(t, n.Kafka, "ENRICHED", 1); fmt.Sprint(got) != fmt.Sprint([]string{joined}) {
		t.Fatalf("inner join: got %v, want [%s]", got, joined)
	}
	want := []string{joined, early} // consume sorts
	if got := consume(t, n.Kafka, "ENRICHED_ALL", 2); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("left join: got %v, want %v", got, want)
	}
}

// TestOrdersForeignKeyJoin runs a foreign-key table–table join through
// the binary and the embedded broker: orders (2 partitions) join
// customers (3 partitions) on customer_id, through the query's
// subscription and response topics. A customer change updates every
// order subscribed to it; moving an order to another customer replaces
// its result, and the old customer's later changes no longer reach it,
// also after a restart.
// Deleting an order deletes its result: the table read back with kcat
// (read_committed) ends in its tombstone, and pull queries on it no
// longer see it.
func TestOrdersForeignKeyJoin(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE TABLE orders (id VARCHAR PRIMARY KEY, customer_id VARCHAR, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=3);
	CREATE TABLE order_names AS SELECT o.id, c.name, o.total
	  FROM orders o LEFT JOIN customers c ON o.customer_id = c.id;`)

	produce(t, n.Kafka, "customers", "c1", `{"NAME":"ada"}`)
	produce(t, n.Kafka, "customers", "c2", `{"NAME":"bob"}`)
	consume(t, n.Kafka, "default_query_CTAS_ORDER_NAMES_2-KafkaTopic_Right-Reduce-changelog", 2)
	produce(t, n.Kafka, "orders", "o1", `{"CUSTOMER_ID":"c1","TOTAL":5}`)
	produce(t, n.Kafka, "orders", "o2", `{"CUSTOMER_ID":"c1","TOTAL":6}`)
	want := []string{`o1={"NAME":"ada","TOTAL":5}`, `o2={"NAME":"ada","TOTAL":6}`}
	if got := consume(t, n.Kafka, "ORDER_NAMES", 2); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("orders joined with their customer: got %v, want %v", got, want)
	}
	produce(t, n.Kafka, "orders", "o1", `{"CUSTOMER_ID":"c2","TOTAL":5}`)
	want = append(want, `o1={"NAME":"bob","TOTAL":5}`)
	sort.Strings(want)
	if got := consume(t, n.Kafka, "ORDER_NAMES", 3); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("o1 moved to c2: got %v, want %v", got, want)
	}
	// A restart keeps the subscriptions: c1's change still reaches o2
	// and not o1, and nothing is written twice.
	awaitQueriesCommitted(t, n.Kafka, "orders", "customers")
	n.restart()
	produce(t, n.Kafka, "customers", "c1", `{"NAME":"ada2"}`)
	want = append(want, `o2={"NAME":"ada2","TOTAL":6}`)
	sort.Strings(want)
	if got := consume(t, n.Kafka, "ORDER_NAMES", 4); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("c1 changed (o1 no longer on it): got %v, want %v", got, want)
	}
	if _, err := exec.LookPath("kcat"); err != nil {
		return // the rest reads the table back with kcat
	}
	produceTombstone(t, n.Kafka, "orders", "o2")
	awaitCommittedValues(t, n.Kafka, "ORDER_NAMES", append(want, "o2=NULL")...)
	awaitPull(t, n, "SELECT * FROM order_names;", map[string]string{"o1": "bob 5"})
	awaitPull(t, n, "SELECT o_id, name FROM order_names WHERE o_id = 'o1';", map[string]string{"o1": "bob"}) // both sides have an ID
}
