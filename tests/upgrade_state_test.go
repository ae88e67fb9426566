package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/internal/testutil"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TestUpgradeKeepsCountsAddsSum is issue 20 part 2 through the binary: a
// GROUP BY count upgraded to count + sum (which ksqlDB refuses) keeps
// every group's count; pull queries before and after the upgrade agree,
// the new sum counts only the records after it (EXPLAIN CREATE OR
// REPLACE says so first), and nothing is read again: the consumer
// group's committed offset goes on from where it was, and a restart
// restores the same state.
func TestUpgradeKeepsCountsAddsSum(t *testing.T) {
	n := startNode(t)
	n.mustKsql(purchasesDDL)
	n.mustKsql("CREATE TABLE counts AS SELECT id, COUNT(*) AS n FROM purchases GROUP BY id;")
	produce(t, n.Kafka, "purchases", "p1", `{"cost":1,"quantity":1}`, "p2", `{"cost":1,"quantity":2}`, "p1", `{"cost":1,"quantity":3}`)
	pull := func(want map[string]string) func() error {
		return func() error { return same(counts(t, n, "SELECT * FROM counts;"), want) }
	}
	eventually(t, "the counts before the upgrade", pull(map[string]string{"p1": "2", "p2": "1"}))
	group := queryGroup(t, n, "CTAS_COUNTS_1")
	adm := kadm.NewClient(kafkaClient(t, n.Kafka))
	if err := testutil.WaitCommitted(timeoutCtx(t), adm, group, "purchases"); err != nil {
		t.Fatal(err)
	}
	committed := func() int64 {
		t.Helper()
		offs, err := adm.FetchOffsets(timeoutCtx(t), group)
		if err != nil {
			t.Fatal(err)
		}
		o, _ := offs.Lookup("purchases", 0)
		return o.At
	}
	if at := committed(); at != 3 {
		t.Fatalf("committed offset %d before the upgrade, want 3", at)
	}

	after := "CREATE OR REPLACE TABLE counts AS SELECT id, COUNT(*) AS n, SUM(quantity) AS q FROM purchases GROUP BY id;"
	if got := fmt.Sprint(n.mustKsql("EXPLAIN " + after)); !strings.Contains(got, "state: aggregate COUNT(*) (KSQL_AGG_COUNT_3A42E83C): kept") ||
		!strings.Contains(got, "SUM(QUANTITY) (") || !strings.Contains(got, "added, starts from its initial value for existing groups (counts only records after the upgrade)") {
		t.Fatalf("EXPLAIN CREATE OR REPLACE: %s", got)
	}
	if got := fmt.Sprint(n.mustKsql(after)); !strings.Contains(got, "Created query with ID CTAS_COUNTS_1") {
		t.Fatalf("upgrade answered %s", got)
	}
	eventually(t, "the counts right after the upgrade", pull(map[string]string{"p1": "2 0", "p2": "1 0"}))
	produce(t, n.Kafka, "purchases", "p1", `{"cost":1,"quantity":5}`, "p3", `{"cost":1,"quantity":7}`)
	// Were the three records before the upgrade read again, p1 would
	// count 5.
	want := map[string]string{"p1": "3 5", "p2": "1 0", "p3": "1 7"}
	eventually(t, "the counts and sums after the upgrade", pull(want))
	if got := queryGroup(t, n, "CTAS_COUNTS_1"); got != group {
		t.Fatalf("consumer group %s after the upgrade, %s before", got, group)
	}
	if err := testutil.WaitCommitted(timeoutCtx(t), adm, group, "purchases"); err != nil {
		t.Fatal(err)
	}
	if at := committed(); at != 5 {
		t.Fatalf("committed offset %d after the upgrade, want 5", at)
	}

	n.restart()
	eventually(t, "the counts and sums after a restart", pull(want))
	produce(t, n.Kafka, "purchases", "p2", `{"cost":1,"quantity":4}`)
	eventually(t, "a count and sum after the restart", pull(map[string]string{"p1": "3 5", "p2": "2 4", "p3": "1 7"}))
}
