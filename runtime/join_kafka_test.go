package runtime_test

import (
	"os"
	"testing"

	"github.com/sqlstream/sqlstream/api"
)

// TestStreamTableJoinSurvivesRestartAndLostState joins orders with
// customers over the Kafka protocol, restarts the engine (local state
// kept), then loses the local state: the table side's store is rebuilt
// from its KafkaTopic_Right-Reduce changelog, so later orders still find
// their customer without the customer being produced again.
func TestStreamTableJoinSurvivesRestartAndLostState(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.exec(`CREATE STREAM orders (customer_id VARCHAR KEY, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	out := r.exec(`CREATE STREAM enriched AS SELECT o.customer_id, c.name, o.total
	  FROM orders o JOIN customers c ON o.customer_id = c.id;`)
	id := *out[0].(api.CommandStatusEntity).CommandStatus.QueryID
	r.produce("customers", "c1", `{"NAME":"ada"}`)
	// the customer is in the store (its changelog has it) before the order comes
	r.consume("default_query_"+id+"-KafkaTopic_Right-Reduce-changelog", 1)
	r.produce("orders", "c1", `{"TOTAL":1}`)
	expectJoined(t, r, 1, `c1={"NAME":"ada","TOTAL":1}`)
	r.awaitCommitted("default_query_"+id, "orders", "customers")

	r.restart()
	r.produce("orders", "c1", `{"TOTAL":2}`)
	expectJoined(t, r, 2, `c1={"NAME":"ada","TOTAL":2}`)
	r.awaitCommitted("default_query_"+id, "orders", "customers")

	r.e.Close()
	r.e = nil
	if err := os.RemoveAll(r.dir + "/state"); err != nil {
		t.Fatal(err)
	}
	r.startEngine()
	r.produce("orders", "c1", `{"TOTAL":3}`)
	expectJoined(t, r, 3, `c1={"NAME":"ada","TOTAL":3}`)
}

// expectJoined reads n records of ENRICHED and requires last among them.
func expectJoined(t *testing.T, r *rig, n int, last string) {
	t.Helper()
	got := values(r.consume("ENRICHED", n))
	if len(got) != n || !contains(got, last) {
		t.Fatalf("ENRICHED: got %q, want %d records with %s", got, n, last)
	}
}
