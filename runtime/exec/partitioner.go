package exec

import (
	"context"
	"math/rand/v2"
	"time"

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

// placedBy is the context of a record with key key placed by murmur2 of
// pk. A windowed key's inner key is a prefix of it: then the context is
// that prefix's length (keyPrefix), which costs no allocation where a
// context.WithValue costs two per output record.
func placedBy(key, pk []byte) context.Context {
	if n := len(pk); n > 0 && n <= len(key) && &pk[0] == &key[0] {
		return keyPrefix(n)
	}
	return context.WithValue(context.Background(), partitionKeyKey{}, pk)
}

// keyPrefix is the context of a record placed by murmur2 of the first
// keyPrefix bytes of its key. Boxing an integer below 256 into an
// interface takes no allocation; longer prefixes take one small one.
type keyPrefix int

var _ context.Context = keyPrefix(0)

func (keyPrefix) Deadline() (time.Time, bool) { return time.Time{}, false }
func (keyPrefix) Done() <-chan struct{}       { return nil }
func (keyPrefix) Err() error                  { return nil }
func (keyPrefix) Value(any) any               { return nil }

// placement is the bytes r is placed by instead of its key, if any.
func placement(r *kgo.Record) ([]byte, bool) {
	if n, ok := r.Context.(keyPrefix); ok && int(n) <= len(r.Key) {
		return r.Key[:n], true
	}
	pk, ok := r.Context.Value(partitionKeyKey{}).([]byte)
	return pk, ok
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
			if n == 1 {
				// Every record goes to the one partition: no hash, no
				// context lookup, no random number (a topic of one
				// partition is the common case of a sink; the lookups
				// and the draw were 2% of q0 through the binary).
				return 0
			}
			if r.Context != nil {
				if pk, ok := placement(r); ok {
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
