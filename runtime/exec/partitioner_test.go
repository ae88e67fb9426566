package exec

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestPartitionerPlacesByPartitionKey: the Kafka producer's partitioner
// puts a record placed by its partition key (a windowed key's inner key)
// where murmur2 of that key goes, not of the record's key (the engine's
// TestWindowedSinkPlacedByInnerKey runs the query in memory).
func TestPartitionerPlacesByPartitionKey(t *testing.T) {
	key := []byte("inner+window")
	for _, pk := range [][]byte{
		key[:len("inner")],  // a windowed key's inner key: its prefix
		[]byte("elsewhere"), // a foreign key, bytes of their own
	} {
		rec := &kgo.Record{Topic: "t", Key: key, Context: placedBy(key, pk)}
		if got := Partitioner().ForTopic("t").Partition(rec, 16); int32(got) != DefaultPartition(pk, 16) {
			t.Errorf("the producer's partitioner put a record placed by %q in %d, want %d", pk, got, DefaultPartition(pk, 16))
		}
	}
}

// TestPlacedByPrefixAllocatesNothing: placing a windowed key's record by
// its inner key, a prefix of the key, costs no allocation.
func TestPlacedByPrefixAllocatesNothing(t *testing.T) {
	key := []byte("user-42\x00\x00\x00\x00\x00\x00\x00\x01")
	var ctx any
	if n := testing.AllocsPerRun(100, func() { ctx = placedBy(key, key[:7]) }); n != 0 {
		t.Errorf("placedBy of a key prefix made %.0f allocations, want 0", n)
	}
	if _, ok := ctx.(keyPrefix); !ok {
		t.Errorf("placedBy of a key prefix = %T, want keyPrefix", ctx)
	}
}

// TestPartitionerOnePartition: on a topic of one partition every record
// goes to partition 0 (keyed, keyless, placed by a partition key) and
// costs no allocation, and an explicit partition is still the record's
// own (the client refuses one out of range; the partitioner does not
// hide it).
func TestPartitionerOnePartition(t *testing.T) {
	tp := Partitioner().ForTopic("t")
	key := []byte("inner+window")
	for _, rec := range []*kgo.Record{
		{Topic: "t", Key: key},
		{Topic: "t"},
		{Topic: "t", Key: key, Context: placedBy(key, key[:5])},
		{Topic: "t", Key: key, Context: placedBy(key, []byte("elsewhere"))},
	} {
		if got := tp.Partition(rec, 1); got != 0 {
			t.Errorf("record %q (context %v) went to %d of 1 partition", rec.Key, rec.Context, got)
		}
	}
	if got := tp.Partition(&kgo.Record{Topic: "t", Partition: 3, Context: manualCtx}, 1); got != 3 {
		t.Errorf("a record for partition 3 was put in %d", got)
	}
	rec := &kgo.Record{Topic: "t"}
	if n := testing.AllocsPerRun(100, func() { tp.Partition(rec, 1) }); n != 0 {
		t.Errorf("placing a keyless record made %.0f allocations, want 0", n)
	}
}

// BenchmarkPartitionerKeyless places a keyless output record (the
// client has set its context to the produce call's) on a sink topic of
// one partition, as q0's sink does for every record.
func BenchmarkPartitionerKeyless(b *testing.B) {
	tp := Partitioner().ForTopic("t")
	rec := &kgo.Record{Topic: "t", Value: []byte("v"), Context: context.Background()}
	for b.Loop() {
		tp.Partition(rec, 1)
	}
}
