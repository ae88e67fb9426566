package state

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Changelog receives every write of a changelogged store: the runtime
// implements it with a producer to the store's changelog topic partition
// (StoreID.ChangelogTopic(), partition StoreID.Partition). A nil value is a
// tombstone. ts is the record's timestamp (epoch millis) for a store
// opened with TimestampInRecord, whose value then comes without its
// timestamp, and NoTimestamp otherwise (and for a tombstone): the
// producer stamps the record. key and value are valid only during the
// call: copy them to keep them. Send is called from the store's task
// goroutine and cannot fail: the runtime reports produce errors at its
// commit (producer flush), before it calls DB.Checkpoint.
type Changelog interface {
	Send(key, value []byte, ts int64)
}

// NoTimestamp is the ts of a changelog record whose store keeps no
// timestamp in its values (see Changelog).
const NoTimestamp int64 = math.MinInt64

// changeloggingStore writes through to inner and then logs the write.
// With timestamped (TimestampInRecord) the value's leading 8 bytes go
// out as the record's timestamp.
type changeloggingStore struct {
	inner       Store
	log         Changelog
	timestamped bool
}

var (
	_ Store  = (*changeloggingStore)(nil)
	_ purger = (*changeloggingStore)(nil)
)

func newChangeloggingStore(inner Store, log Changelog, timestamped bool) *changeloggingStore {
	return &changeloggingStore{inner: inner, log: log, timestamped: timestamped}
}

func (s *changeloggingStore) Get(key []byte) ([]byte, error) { return s.inner.Get(key) }

// Put writes key below, then sends it to the changelog.
func (s *changeloggingStore) Put(key, value []byte) error {
	if err := s.check(key, value); err != nil {
		return err
	}
	if err := s.inner.Put(key, value); err != nil {
		return err
	}
	s.send(key, value)
	return nil
}

// check refuses, before anything is written, a value of a timestamped
// store that has no timestamp to take out: the caller's bug, which would
// otherwise reach the changelog as a record no restore can rebuild.
func (s *changeloggingStore) check(key, value []byte) error {
	if s.timestamped && value != nil && len(value) < 8 {
		return fmt.Errorf("state: put %q: a value of %d bytes in a store with the timestamp in its changelog records, which needs 8 bytes of timestamp first", key, len(value))
	}
	return nil
}

// send logs a write that reached the layer below.
func (s *changeloggingStore) send(key, value []byte) {
	if !s.timestamped || value == nil {
		s.log.Send(key, value, NoTimestamp)
		return
	}
	s.log.Send(key, value[8:], int64(binary.BigEndian.Uint64(value)))
}

func (s *changeloggingStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	return s.inner.Range(start, end, fn)
}

func (s *changeloggingStore) Flush() error { return s.inner.Flush() }

func (s *changeloggingStore) Close() error { return s.inner.Close() }

// purge removes entries locally only: retention is the changelog topic's
// own job (cleanup.policy=compact,delete), as in Kafka Streams.
func (s *changeloggingStore) purge(match func(key []byte) bool, windowsBefore int64) error {
	return s.inner.(purger).purge(match, windowsBefore)
}
