package runtime

import (
	"encoding/binary"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
)

// TestWindowedSinkPlacedByInnerKey: a windowed query writes each record
// to the partition of its inner key, as Kafka Streams'
// WindowedStreamPartitioner does (not of the key with its window), in
// memory (the Kafka producer's partitioner: exec's
// TestPartitionerPlacesByPartitionKey).
func TestWindowedSinkPlacedByInnerKey(t *testing.T) {
	e, err := NewTestEngine(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`CREATE STREAM s (k INT KEY, id BIGINT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', KEY_FORMAT='KAFKA', PARTITIONS=4, WINDOW_TYPE='Tumbling', WINDOW_SIZE='2 SECONDS');`,
		`CREATE STREAM out AS SELECT * FROM s;`,
	} {
		if _, err := e.ExecuteStatement(sql, map[string]any{"auto.offset.reset": "earliest"}); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	inner := binary.BigEndian.AppendUint32(nil, 1)
	for start := int64(0); start < 10000; start += 2000 {
		key := binary.BigEndian.AppendUint64(append([]byte(nil), inner...), uint64(start))
		if err := e.Produce(&physical.OutRecord{Topic: "s", Partition: 0, Key: key, Value: []byte(`{"ID":1}`), Timestamp: start}); err != nil {
			t.Fatal(err)
		}
	}
	want := exec.DefaultPartition(inner, 4)
	n := 0
	for _, r := range e.Drain() {
		if r.Topic != "OUT" {
			continue
		}
		n++
		if r.Partition != want {
			t.Errorf("window %x of key 1 went to partition %d, want %d (its inner key's)", r.Key[4:], r.Partition, want)
		}
	}
	if n != 5 {
		t.Fatalf("OUT got %d records, want 5", n)
	}
}
