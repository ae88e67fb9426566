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
	pk := []byte("inner")
	rec := &kgo.Record{Topic: "t", Key: []byte("inner+window"), Context: placedBy(pk)}
	if got := Partitioner().ForTopic("t").Partition(rec, 16); int32(got) != DefaultPartition(pk, 16) {
		t.Errorf("the producer's partitioner put a record placed by %q in %d, want %d", pk, got, DefaultPartition(pk, 16))
	}
}
