package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestStreamStreamJoinLateRecordThroughTheBinary: a LEFT stream–stream
// join WITHIN 1 MINUTE GRACE PERIOD 1 MINUTE (retention 3 minutes). After
// stream time 330 s, a left row at 90 s is late for its store: it is
// emitted with nulls at once (its window closed) but not stored, so the
// right row at 90 s finds nothing; it is counted in DESCRIBE EXTENDED and
// copied to late.records.topic. A right row with a null key is skipped
// and counted.
func TestStreamStreamJoinLateRecordThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := startNode(t, "--config", writeConfig(t, "ksql.streams.commit.interval.ms=100\n"))
	n.mustKsql(`CREATE STREAM a_s (k VARCHAR KEY, x INT, ts BIGINT)
	  WITH (KAFKA_TOPIC='a_s', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE STREAM b_s (k VARCHAR KEY, y INT, ts BIGINT)
	  WITH (KAFKA_TOPIC='b_s', VALUE_FORMAT='JSON', PARTITIONS=1, TIMESTAMP='ts');
	CREATE STREAM late_joins (k VARCHAR KEY, x INT, ts BIGINT)
	  WITH (KAFKA_TOPIC='late_joins', VALUE_FORMAT='JSON', PARTITIONS=1);`)
	code, v := n.ksql(`CREATE STREAM ab AS SELECT a.k, x, y FROM a_s a
	  LEFT JOIN b_s b WITHIN 1 MINUTE GRACE PERIOD 1 MINUTE ON a.k = b.k;`,
		map[string]any{"late.records.topic": "late_joins", "auto.offset.reset": "earliest"})
	if code != 200 {
		t.Fatalf("create: %d %v", code, v)
	}
	// One record at a time, each after the previous one's effect, so the
	// two topics are read in this order.
	produce(t, n.Kafka, "a_s", "k1", `{"X":1,"TS":0}`)
	produce(t, n.Kafka, "b_s", "k1", `{"Y":10,"TS":60000}`)
	consume(t, n.Kafka, "AB", 1)
	produce(t, n.Kafka, "a_s", "k2", `{"X":2,"TS":330000}`)
	eventually(t, "stream time 330 s", func() error { return describeHas(n, "stream time 1970-01-01T00:05:30.000Z") })
	produce(t, n.Kafka, "a_s", "k3", `{"X":3,"TS":90000}`)
	consume(t, n.Kafka, "AB", 2)
	produce(t, n.Kafka, "b_s", "k3", `{"Y":30,"TS":90000}`)
	produceNullKey(t, n.Kafka, "b_s", `{"Y":0,"TS":90000}`)
	eventually(t, "late and null-key records counted", func() error {
		return describeHas(n, "dropped-records (late): 1 dropped-records (null key or value): 1")
	})
	if got := consume(t, n.Kafka, "late_joins", 1); fmt.Sprint(got) != `[k3={"X":3,"TS":90000}]` {
		t.Fatalf("late.records.topic holds %v", got)
	}
	want := `[k1={"X":1,"Y":10} k3={"X":3,"Y":null}]`
	if got := consumeAvailable(t, n.Kafka, "AB"); fmt.Sprint(got) != want {
		t.Fatalf("AB holds %v, want %s", got, want)
	}
}

// describeHas checks that DESCRIBE ab EXTENDED mentions s.
func describeHas(n *node, s string) error {
	_, v := n.ksql("DESCRIBE ab EXTENDED;", nil)
	if !strings.Contains(fmt.Sprint(v), s) {
		return fmt.Errorf("DESCRIBE EXTENDED lacks %q: %v", s, v)
	}
	return nil
}

// produceNullKey writes one record with a null key.
func produceNullKey(t *testing.T, addr, topic, value string) {
	t.Helper()
	r := &kgo.Record{Topic: topic, Value: []byte(value)}
	if err := kafkaClient(t, addr).ProduceSync(timeoutCtx(t), r).FirstErr(); err != nil {
		t.Fatalf("produce to %s: %v", topic, err)
	}
}
