package runtime_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestJoinProcessesInputsInTimestampOrder fills the table and the stream
// topic before the join starts, each customer twice (v1, then v2 later)
// and each order between and after: the join reads both partitions in
// timestamp order whatever order they are fetched in, so the first order
// of a customer meets v1 and the second v2, under either guarantee.
func TestJoinProcessesInputsInTimestampOrder(t *testing.T) {
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) {
			r := newRig(t)
			want, _ := fillOrdersAndCustomers(r, 40)
			r.exec(`SET 'auto.offset.reset'='earliest';
			SET 'processing.guarantee'='` + guarantee + `';
			CREATE STREAM enriched AS SELECT o.customer_id, c.name, o.total
			  FROM orders o JOIN customers c ON o.customer_id = c.id;`)
			got := values(r.consume("ENRICHED", len(want)))
			sort.Strings(got)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("ENRICHED:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestPushJoinProcessesInputsInTimestampOrder is the same through a
// transient push query.
func TestPushJoinProcessesInputsInTimestampOrder(t *testing.T) {
	r := newRig(t)
	_, want := fillOrdersAndCustomers(r, 40)
	got := r.rows(fmt.Sprintf(`SELECT o.customer_id, c.name, o.total FROM orders o JOIN customers c
	  ON o.customer_id = c.id EMIT CHANGES LIMIT %d;`, len(want)))
	sort.Strings(got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("push query:\n got %q\nwant %q", got, want)
	}
}

// fillOrdersAndCustomers creates ORDERS and CUSTOMERS (one partition
// each) and produces n customers twice (v1, then v2 200 ms later) and,
// after them, each customer's two orders (100 ms after each version). It
// returns the join's results as sink records and as push query rows,
// sorted.
func fillOrdersAndCustomers(r *rig, n int) (records, rows []string) {
	r.exec(`CREATE STREAM orders (customer_id VARCHAR KEY, total INT)
	  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
	  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	var customers, orders []*kgo.Record
	for i := range n {
		key, base := fmt.Sprintf("c%02d", i), int64(1_000_000+1000*i)
		customers = append(customers, at("customers", key, `{"NAME":"v1"}`, base),
			at("customers", key, `{"NAME":"v2"}`, base+200))
		orders = append(orders, at("orders", key, `{"TOTAL":1}`, base+100),
			at("orders", key, `{"TOTAL":2}`, base+300))
		records = append(records, key+`={"NAME":"v1","TOTAL":1}`, key+`={"NAME":"v2","TOTAL":2}`)
		rows = append(rows, "["+key+" v1 1]", "["+key+" v2 2]")
	}
	r.produceAll(customers...)
	r.produceAll(orders...)
	sort.Strings(records)
	sort.Strings(rows)
	return records, rows
}

// TestJoinWaitsMaxTaskIdle starts a join whose table is empty (caught
// up) and whose stream has an order: with max.task.idle.ms the order
// waits (under exactly_once_v2 through several transactions, each
// handing it back to the consumer uncommitted) and meets the customer
// produced, with an earlier timestamp, during the wait (then, the table
// empty again, it waits out max.task.idle.ms once more, as in Kafka
// Streams).
func TestJoinWaitsMaxTaskIdle(t *testing.T) {
	for _, guarantee := range []string{"at_least_once", "exactly_once_v2"} {
		t.Run(guarantee, func(t *testing.T) {
			r := newRig(t)
			r.exec(`CREATE STREAM orders (customer_id VARCHAR KEY, total INT)
			  WITH (KAFKA_TOPIC='orders', VALUE_FORMAT='JSON', PARTITIONS=1);
			CREATE TABLE customers (id VARCHAR PRIMARY KEY, name VARCHAR)
			  WITH (KAFKA_TOPIC='customers', VALUE_FORMAT='JSON', PARTITIONS=1);`)
			r.produceAll(at("orders", "c1", `{"TOTAL":1}`, 5000))
			r.exec(`SET 'auto.offset.reset'='earliest';
			SET 'max.task.idle.ms'='3000';
			SET 'processing.guarantee'='` + guarantee + `';
			CREATE STREAM enriched AS SELECT o.customer_id, c.name, o.total
			  FROM orders o JOIN customers c ON o.customer_id = c.id;`)
			time.Sleep(time.Second)
			r.produceAll(at("customers", "c1", `{"NAME":"ada"}`, 1000))
			got := values(r.consume("ENRICHED", 1))
			if want := `c1={"NAME":"ada","TOTAL":1}`; len(got) != 1 || got[0] != want {
				t.Fatalf("ENRICHED: got %q, want %q", got, want)
			}
		})
	}
}

func at(topic, key, value string, ts int64) *kgo.Record {
	return &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value), Timestamp: time.UnixMilli(ts)}
}

// produceAll writes recs in order with one client.
func (r *rig) produceAll(recs ...*kgo.Record) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		r.t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		r.t.Fatal(err)
	}
}
