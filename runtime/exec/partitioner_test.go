package exec

import (
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
