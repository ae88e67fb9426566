package tests

import (
	"sort"
	"strings"
	"testing"
)

// TestCompositeKeyJoinWithResidual runs a stream–table join on two
// columns with a non-equi condition through the binary and the embedded
// broker: orders (keyed by id alone, 2 partitions) join the limits of
// their (id, region) (a table keyed by both, 2 partitions) only when the
// amount is within the limit. The orders are re-keyed by both columns
// into the query's Join-repartition topic, written as the table writes
// its JSON key, so each meets its limit's partition. The LEFT join keeps
// an order over its limit with a null limit; the inner join drops it.
func TestCompositeKeyJoinWithResidual(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM orders (id INT KEY, region VARCHAR, amount DOUBLE)
	  WITH (KAFKA_TOPIC='orders', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE TABLE limits (id INT PRIMARY KEY, region VARCHAR PRIMARY KEY, max_amount DOUBLE)
	  WITH (KAFKA_TOPIC='limits', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=2);
	CREATE STREAM checked AS SELECT o.id, o.region, o.amount, l.max_amount
	  FROM orders o LEFT JOIN limits l ON o.id = l.id AND o.region = l.region AND o.amount <= l.max_amount;
	CREATE STREAM approved AS SELECT o.id, o.region, o.amount
	  FROM orders o JOIN limits l ON o.id = l.id AND o.region = l.region AND o.amount <= l.max_amount;`)

	produce(t, n.Kafka, "limits",
		`{"ID":1,"REGION":"eu"}`, `{"MAX_AMOUNT":100}`,
		`{"ID":1,"REGION":"us"}`, `{"MAX_AMOUNT":10}`,
		`{"ID":2,"REGION":"eu"}`, `{"MAX_AMOUNT":50}`)
	// the limits are in both joins' stores before the orders come
	consume(t, n.Kafka, "default_query_CSAS_CHECKED_2-KafkaTopic_Right-Reduce-changelog", 3)
	consume(t, n.Kafka, "default_query_CSAS_APPROVED_3-KafkaTopic_Right-Reduce-changelog", 3)
	produce(t, n.Kafka, "orders",
		"1", `{"REGION":"eu","AMOUNT":80}`, // within (1, eu)'s limit
		"1", `{"REGION":"us","AMOUNT":80}`, // over (1, us)'s
		"2", `{"REGION":"eu","AMOUNT":20}`, // within (2, eu)'s
		"2", `{"REGION":"us","AMOUNT":1}`) // no limit for (2, us)

	approved := []string{
		`{"O_ID":1,"O_REGION":"eu"}={"AMOUNT":80.0}`,
		`{"O_ID":2,"O_REGION":"eu"}={"AMOUNT":20.0}`,
	}
	if got := consume(t, n.Kafka, "APPROVED", 2); strings.Join(got, "\n") != strings.Join(approved, "\n") {
		t.Fatalf("inner join: got %v, want %v", got, approved)
	}
	checked := []string{
		`{"O_ID":1,"O_REGION":"eu"}={"AMOUNT":80.0,"MAX_AMOUNT":100.0}`,
		`{"O_ID":1,"O_REGION":"us"}={"AMOUNT":80.0,"MAX_AMOUNT":null}`,
		`{"O_ID":2,"O_REGION":"eu"}={"AMOUNT":20.0,"MAX_AMOUNT":50.0}`,
		`{"O_ID":2,"O_REGION":"us"}={"AMOUNT":1.0,"MAX_AMOUNT":null}`,
	}
	if got := consume(t, n.Kafka, "CHECKED", 4); strings.Join(got, "\n") != strings.Join(checked, "\n") {
		t.Fatalf("left join: got %v, want %v", got, checked)
	}
}

// TestJoinOnSidesRecordOffsets joins two streams through the binary and
// the embedded broker on each side's own record offset (a.ROWOFFSET =
// b.ROWOFFSET, as ksqlDB's row-offset-and-partition QTT case): each
// side's ROWOFFSET and ROWPARTITION are its source record's, carried
// through the repartition topics the re-keying on them needs, so the
// n-th order meets the n-th shipment whatever their keys.
func TestJoinOnSidesRecordOffsets(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM a (id INT KEY, foo VARCHAR)
	  WITH (KAFKA_TOPIC='a', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE STREAM b (id INT KEY, bar VARCHAR)
	  WITH (KAFKA_TOPIC='b', KEY_FORMAT='JSON', VALUE_FORMAT='JSON', PARTITIONS=1);
	CREATE STREAM paired AS SELECT foo, bar, a.ROWOFFSET AS roa, b.ROWOFFSET AS rob, b.ROWPARTITION AS rpb
	  FROM a JOIN b WITHIN 1 HOUR ON a.ROWOFFSET = b.ROWOFFSET;`)
	produce(t, n.Kafka, "a", "1", `{"FOO":"a"}`, "2", `{"FOO":"b"}`, "3", `{"FOO":"c"}`)
	produce(t, n.Kafka, "b", "4", `{"BAR":"d"}`, "5", `{"BAR":"e"}`, "6", `{"BAR":"f"}`)
	want := []string{
		`0={"FOO":"a","BAR":"d","ROB":0,"RPB":0}`,
		`1={"FOO":"b","BAR":"e","ROB":1,"RPB":0}`,
		`2={"FOO":"c","BAR":"f","ROB":2,"RPB":0}`,
	}
	got := consume(t, n.Kafka, "PAIRED", 3)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("joined on record offsets: got %v, want %v", got, want)
	}
}
