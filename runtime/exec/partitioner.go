package exec

import (
	"context"
	"math/rand/v2"

	"github.com/twmb/franz-go/pkg/kgo"
)

// manualKey marks a record whose Partition was chosen by the engine
// (changelog records go to their task's partition).
type manualKey struct{}

// manualCtx is the context of records with an explicit partition.
var manualCtx = context.WithValue(context.Background(), manualKey{}, true)

// partitionKeyKey carries the bytes a record is placed by instead of its
// key (physical.OutRecord.PartitionKey: a windowed key's inner key).
type partitionKeyKey struct{}

// placedBy is the context of a record placed by murmur2 of pk.
func placedBy(pk []byte) context.Context {
	return context.WithValue(context.Background(), partitionKeyKey{}, pk)
}

// Partitioner places records like Kafka's default partitioner (murmur2 of
// the key, any partition for a null key) unless the record carries an
// explicit partition (see manualCtx) or the bytes to hash instead of its
// key (placedBy).
func Partitioner() kgo.Partitioner {
	return kgo.BasicConsistentPartitioner(func(string) func(*kgo.Record, int) int {
		return func(r *kgo.Record, n int) int {
			if r.Context != nil && r.Context.Value(manualKey{}) != nil {
				return int(r.Partition)
			}
			if r.Context != nil {
				if pk, ok := r.Context.Value(partitionKeyKey{}).([]byte); ok {
					return int(DefaultPartition(pk, int32(n)))
				}
			}
			if r.Key == nil {
				return rand.IntN(n)
			}
			return int(DefaultPartition(r.Key, int32(n)))
		}
	})
}

// DefaultPartition is Kafka's default partitioner: murmur2 of the key
// modulo the partition count (partition 0 for a null key here, so test
// drivers agree).
func DefaultPartition(key []byte, partitions int32) int32 {
	if key == nil || partitions <= 1 {
		return 0
	}
	return int32((murmur2(key) & 0x7fffffff) % uint32(partitions))
}
