package tests

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestJoinReadsInputsInTimestampOrder fills both sides of a stream–table
// join before the query exists (every customer twice, v1 then v2, each
// order between or after) and starts it from the earliest offsets,
// through the binary and the embedded broker: whatever order the two
// topics are fetched in, the join task processes their records by
// timestamp, so each customer's first order meets v1 and its second v2.
// A second query, with max.task.idle.ms set per query, sees a customer
// produced while its order waits.
func TestJoinReadsInputsInTimestampOrder(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM orders (customer_id VARCHAR KEY, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=2);`)
	var customers, orders []*kgo.Record
	var want []string
	rec := func(topic, key, value string, ts int64) *kgo.Record {
		return &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value), Timestamp: time.UnixMilli(ts)}
	}
	for i := range 30 {
		key, base := fmt.Sprintf("c%02d", i), int64(1_000_000+1000*i)
		customers = append(customers, rec("customers", key, `{"NAME":"v1"}`, base), rec("customers", key, `{"NAME":"v2"}`, base+200))
		orders = append(orders, rec("orders", key, `{"TOTAL":1}`, base+100), rec("orders", key, `{"TOTAL":2}`, base+300))
		want = append(want, key+`={"NAME":"v1","TOTAL":1}`, key+`={"NAME":"v2","TOTAL":2}`)
	}
	cl := kafkaClient(t, n.Kafka)
	if err := cl.ProduceSync(timeoutCtx(t), append(customers, orders...)...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	CREATE STREAM enriched AS SELECT o.customer_id, c.name, o.total
	  FROM orders o JOIN customers c ON o.customer_id = c.id;`)
	sort.Strings(want)
	if got := consume(t, n.Kafka, "ENRICHED", len(want)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("ENRICHED:\n got %v\nwant %v", got, want)
	}

	// An order of a customer not there yet waits max.task.idle.ms.
	if err := cl.ProduceSync(timeoutCtx(t), rec("orders", "late", `{"TOTAL":3}`, 9_000_000)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	n.mustKsql(`SET 'auto.offset.reset'='earliest'; SET 'max.task.idle.ms'='4000';
	CREATE STREAM waited AS SELECT o.customer_id, c.name, o.total
	  FROM orders o JOIN customers c ON o.customer_id = c.id;`)
	time.Sleep(time.Second)
	if err := cl.ProduceSync(timeoutCtx(t), rec("customers", "late", `{"NAME":"lin"}`, 8_000_000)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	wantWaited := append(append([]string{}, want...), `late={"NAME":"lin","TOTAL":3}`)
	sort.Strings(wantWaited)
	if got := consume(t, n.Kafka, "WAITED", len(wantWaited)); strings.Join(got, "\n") != strings.Join(wantWaited, "\n") {
		t.Fatalf("WAITED:\n got %v\nwant %v", got, wantWaited)
	}
}
