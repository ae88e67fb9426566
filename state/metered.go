package state

import "sync/atomic"

// Metrics counts a store's operations. Safe for concurrent use: the task
// goroutine counts while others (DESCRIBE EXTENDED, metrics endpoints)
// read a Snapshot.
type Metrics struct {
	puts, deletes, gets, hits, ranges, flushes atomic.Int64
	bytesWritten, bytesRead                    atomic.Int64
}

// MetricsSnapshot is a point-in-time copy of Metrics.
type MetricsSnapshot struct {
	Puts, Deletes, Gets, GetHits, Ranges, Flushes int64
	BytesWritten, BytesRead                       int64 // keys and values in Put / returned by Get and Range
}

// Snapshot copies the counters.
func (m *Metrics) Snapshot() MetricsSnapshot {
	return MetricsSnapshot{
		Puts: m.puts.Load(), Deletes: m.deletes.Load(), Gets: m.gets.Load(), GetHits: m.hits.Load(),
		Ranges: m.ranges.Load(), Flushes: m.flushes.Load(),
		BytesWritten: m.bytesWritten.Load(), BytesRead: m.bytesRead.Load(),
	}
}

// meteredStore is the outermost layer: it counts and forwards.
type meteredStore struct {
	inner Store
	m     *Metrics
}

var (
	_ Store  = (*meteredStore)(nil)
	_ purger = (*meteredStore)(nil)
)

func newMeteredStore(inner Store, m *Metrics) *meteredStore {
	return &meteredStore{inner: inner, m: m}
}

func (s *meteredStore) Get(key []byte) ([]byte, error) {
	v, err := s.inner.Get(key)
	s.m.gets.Add(1)
	if v != nil {
		s.m.hits.Add(1)
		s.m.bytesRead.Add(int64(len(key) + len(v)))
	}
	return v, err
}

func (s *meteredStore) Put(key, value []byte) error {
	s.count(key, value)
	return s.inner.Put(key, value)
}

// count meters one write.
func (s *meteredStore) count(key, value []byte) {
	if value == nil {
		s.m.deletes.Add(1)
	} else {
		s.m.puts.Add(1)
	}
	s.m.bytesWritten.Add(int64(len(key) + len(value)))
}

func (s *meteredStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	return s.rangeWith(fn, func(fn func(k, v []byte) bool) error { return s.inner.Range(start, end, fn) })
}

// rangeWith counts a range that below runs.
func (s *meteredStore) rangeWith(fn func(k, v []byte) bool, below func(func(k, v []byte) bool) error) error {
	s.m.ranges.Add(1)
	var n int64
	err := below(func(k, v []byte) bool {
		n += int64(len(k) + len(v))
		return fn(k, v)
	})
	s.m.bytesRead.Add(n)
	return err
}

func (s *meteredStore) Flush() error {
	s.m.flushes.Add(1)
	return s.inner.Flush()
}

func (s *meteredStore) Close() error { return s.inner.Close() }

func (s *meteredStore) purge(match func(key []byte) bool, windowsBefore int64) error {
	return s.inner.(purger).purge(match, windowsBefore)
}
