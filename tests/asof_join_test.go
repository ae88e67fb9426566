package tests

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestAsOfJoinWithKcat runs a plain stream–table join and an as-of join
// (FOR SYSTEM_TIME AS OF) through the binary on the same input, written
// and read back with kcat. Rates change at 3000; an order of 2000
// processed after that change gets the new rate from the plain join and
// the rate valid at 2000 from the as-of join. Times come from a TIMESTAMP
// column, so kcat's records carry them in their values.
func TestAsOfJoinWithKcat(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM orders (currency VARCHAR KEY, id VARCHAR, ts BIGINT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE TABLE rates (currency VARCHAR PRIMARY KEY, rate DOUBLE, ts BIGINT)
	  WITH (KAFKA_TOPIC='rates', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts', HISTORY_RETENTION='1 HOUR');
	CREATE STREAM plain AS SELECT o.currency, o.id, r.rate FROM orders o
	  LEFT JOIN rates r ON o.currency = r.currency;`)
	created := jsonText(t, n.mustKsql(`CREATE STREAM asof AS SELECT o.currency, o.id, r.rate FROM orders o
	  LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ROWTIME AS r ON o.currency = r.currency;`))
	id := regexp.MustCompile(`CSAS_ASOF_\d+`).FindString(created)

	kcatProduce(t, n.Kafka, "rates", `USD:{"RATE":1.0,"TS":1000}`, `USD:{"RATE":2.0,"TS":3000}`)
	// a probe order after both rates: once both queries answer it, both
	// have the rates in their stores
	kcatProduce(t, n.Kafka, "orders", `USD:{"ID":"probe","TS":5000}`)
	probe := `USD={"ID":"probe","RATE":2.0}`
	for _, sink := range []string{"PLAIN", "ASOF"} {
		if got := kcatConsumeWait(t, n.Kafka, sink, 1); fmt.Sprint(got) != "["+probe+"]" {
			t.Fatalf("%s before the order: %v, want %s", sink, got, probe)
		}
	}

	kcatProduce(t, n.Kafka, "orders", `USD:{"ID":"o1","TS":2000}`)
	want := map[string]string{
		"PLAIN": `[USD={"ID":"o1","RATE":2.0} ` + probe + `]`, // the latest rate
		"ASOF":  `[USD={"ID":"o1","RATE":1.0} ` + probe + `]`, // the rate valid at 2000
	}
	for sink, w := range want {
		if got := fmt.Sprint(kcatConsumeWait(t, n.Kafka, sink, 2)); got != w {
			t.Errorf("%s: %s, want %s", sink, got, w)
		}
	}

	explain := jsonText(t, n.mustKsql("EXPLAIN "+id+";"))
	for _, s := range []string{"As of: O.ROWTIME", "History: 1 HOUR", "KafkaTopic_Right-Versioned"} {
		if !strings.Contains(explain, s) {
			t.Errorf("EXPLAIN of the as-of join lacks %q: %s", s, explain)
		}
	}
}
