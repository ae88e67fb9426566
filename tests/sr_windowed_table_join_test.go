package tests

import (
	"bytes"
	be "encoding/binary"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

// TestWindowedRegistryTableJoin: joins of windowed tables keyed in AVRO
// whose producers wrote equal keys under different schema ids (so
// murmur2 put them in other partitions) repartition every side, as
// ksqlDB's PreJoinRepartitionNode does for unwindowed ones: each table is
// copied through its SourceKeyed topic with its windowed key written by
// the join's serializer, a windowed stream re-keyed with its window, and
// every key joins, across 4 partitions, in a table–table and a
// stream–table join. (ksqlDB refuses both joins; planner
// windowedRepartition says why sqlstream runs them.)
func TestWindowedRegistryTableJoin(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	// wt2's producer registered its own key schema: the same int, another
	// schema, hence another id than the one CREATE registers for wt1.
	idB := registerSchema(t, fake, "wt2-key", sr.TypeAvro, `{"type":"int","doc":"the producer's key"}`)
	n.mustKsql(`CREATE TABLE wt1 (id INT PRIMARY KEY, n BIGINT) WITH (KAFKA_TOPIC='wt1', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS', PARTITIONS=4);
	  CREATE TABLE wt2 (id INT PRIMARY KEY, m BIGINT) WITH (KAFKA_TOPIC='wt2', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS', PARTITIONS=4);
	  CREATE STREAM ws (id INT KEY, v BIGINT) WITH (KAFKA_TOPIC='ws', KEY_FORMAT='AVRO', VALUE_FORMAT='JSON', WINDOW_TYPE='TUMBLING', WINDOW_SIZE='2 SECONDS', PARTITIONS=4);`)
	cl, err := sr.NewClient(sr.URLs(fake.URL()))
	if err != nil {
		t.Fatal(err)
	}
	ss, err := cl.SchemaByVersion(timeoutCtx(t), "wt1-key", -1)
	if err != nil {
		t.Fatal(err)
	}
	idA := ss.ID
	if idA == idB {
		t.Fatalf("wt1's and wt2's key schemas have one id (%d): the keys' bytes would not differ", idA)
	}
	const keys = 8
	kc := kafkaClient(t, n.Kafka)
	produce := func(topic string, id int, key int, value string) int32 {
		t.Helper()
		k := windowedAvroIntKey(id, key, 0)
		rec := &kgo.Record{Topic: topic, Key: k, Value: []byte(value), Timestamp: time.UnixMilli(int64(key))}
		if err := kc.ProduceSync(timeoutCtx(t), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
		return rec.Partition
	}
	apart := 0
	for k := 1; k <= keys; k++ {
		p1 := produce("wt1", idA, k, fmt.Sprintf(`{"N":%d}`, k))
		p2 := produce("wt2", idB, k, fmt.Sprintf(`{"M":%d}`, 10*k))
		if p1 != p2 {
			apart++
		}
	}
	if apart == 0 {
		t.Fatal("every key landed in the same partition on both sides: the test would pass without the repartition")
	}
	n.mustKsql(`SET 'auto.offset.reset'='earliest';
	  CREATE TABLE wtt AS SELECT wt1.id AS id, n, m FROM wt1 JOIN wt2 ON wt1.id = wt2.id;
	  CREATE STREAM wst AS SELECT ws.id AS id, v, m FROM ws JOIN wt2 ON ws.id = wt2.id;`)

	var want []string
	for k := 1; k <= keys; k++ {
		want = append(want, fmt.Sprintf(`{"N":%d,"M":%d}`, k, 10*k))
	}
	assertValues(t, consumeValues(t, n, "WTT", keys), want)

	// The stream–table join looks wt2 up: its rows are in the join's
	// store (its changelog holds them) before the stream's are written.
	consumeRecords(t, n, internalTopic(t, n, "CSAS_WST_", "-RightSourceKeyed-Materialize-changelog"), keys)
	want = want[:0]
	for k := 1; k <= keys; k++ {
		produce("ws", idA, k, fmt.Sprintf(`{"V":%d}`, 100*k))
		want = append(want, fmt.Sprintf(`{"V":%d,"M":%d}`, 100*k, 10*k))
	}
	assertValues(t, consumeValues(t, n, "WST", keys), want)

	// Both copies of the table–table join key a row alike: the internal
	// subjects' wire header, the Avro int, the window start.
	left := keysByPartition(consumeRecords(t, n, internalTopic(t, n, "CTAS_WTT_", "-LeftSourceKeyed-SelectKey-repartition"), keys))
	right := keysByPartition(consumeRecords(t, n, internalTopic(t, n, "CTAS_WTT_", "-RightSourceKeyed-SelectKey-repartition"), keys))
	for k, p := range left {
		if rp, ok := right[k]; !ok || rp != p {
			t.Errorf("left copy key %x in partition %d, right copy: present %v, partition %d", k, p, ok, rp)
		}
	}
}

// windowedAvroIntKey is a time-windowed AVRO INT key as a Confluent
// serializer and Kafka Streams' TimeWindowedSerializer write it: magic
// byte, schema id, the zigzag varint, the window start.
func windowedAvroIntKey(id, key int, start int64) []byte {
	k := []byte{0}
	k = be.BigEndian.AppendUint32(k, uint32(id))
	k = be.AppendVarint(k, int64(key))
	return be.BigEndian.AppendUint64(k, uint64(start))
}

// keysByPartition maps each record's key bytes to its partition.
func keysByPartition(recs []*kgo.Record) map[string]int32 {
	out := map[string]int32{}
	for _, r := range recs {
		out[string(r.Key)] = r.Partition
	}
	return out
}

// assertValues compares values with want, in any order.
func assertValues(t *testing.T, values [][]byte, want []string) {
	t.Helper()
	var got []string
	for _, v := range values {
		got = append(got, string(bytes.TrimSpace(v)))
	}
	sort.Strings(got)
	want = append([]string(nil), want...)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", got, want)
	}
}
