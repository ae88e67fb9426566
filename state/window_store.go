package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// ChangelogExtraRetention is what the runtime adds to a window or session
// store's retention for the retention.ms of its changelog topic (created
// with cleanup.policy=compact,delete), Kafka Streams'
// windowstore.changelog.additional.retention.ms: Purge sends no
// tombstones, so the broker must expire old windows itself.
const ChangelogExtraRetention = 24 * time.Hour

// windowSuffix is the window start (8 bytes) and sequence number (4 bytes)
// after the record key: Kafka Streams' WindowKeySchema, so changelog keys
// match what Kafka Streams writes.
const windowSuffix = 12

// WindowKey is the store (and changelog) key of a window:
//
//	<key> <window start, 8 bytes big-endian> <seq, 4 bytes big-endian>
//
// All windows of a key sort together, by start time.
func WindowKey(key []byte, windowStart int64, seq uint32) []byte {
	k := make([]byte, 0, len(key)+windowSuffix)
	k = binary.BigEndian.AppendUint64(append(k, key...), uint64(windowStart))
	return binary.BigEndian.AppendUint32(k, seq)
}

// SplitWindowKey is the inverse of WindowKey.
func SplitWindowKey(k []byte) (key []byte, windowStart int64, seq uint32, err error) {
	if len(k) < windowSuffix {
		return nil, 0, 0, fmt.Errorf("state: window key %x is shorter than %d bytes", k, windowSuffix)
	}
	n := len(k) - windowSuffix
	return k[:n], int64(binary.BigEndian.Uint64(k[n:])), binary.BigEndian.Uint32(k[n+8:]), nil
}

// WindowStore keeps values per (key, window start) over a Store. Like a
// Store it belongs to one task goroutine.
type WindowStore struct {
	s          Store
	duplicates bool
	seq        uint32
	expired    int64 // puts of windows starting before this are dropped
	dropped    int64
	maxStart   int64 // see MaxStart
	scratch    []byte
	// newer answers Gets of windows never put (windowStamps), nil when
	// off; stampsChecked once the store was looked at; firstBuckets is
	// its first size (0: stampsFirstBuckets).
	newer         *windowStamps
	stampsChecked bool
	firstBuckets  int
}

// WindowStore opens id as a window store (the Store stack underneath, so
// caching and changelogging apply to window keys).
func (d *DB) WindowStore(id StoreID, opts ...StoreOption) (*WindowStore, error) {
	s, cfg, err := d.openStack(id, opts)
	if err != nil {
		return nil, err
	}
	w := &WindowStore{s: s, duplicates: cfg.retainDuplicates, maxStart: -1}
	if w.duplicates {
		if err := w.loadSeq(); err != nil {
			return nil, errors.Join(err, s.Close())
		}
	}
	return w, nil
}

// loadSeq continues after the highest sequence number in the store, so
// duplicates written after a restart do not overwrite older ones, and
// finds the latest window start (MaxStart) in the same scan.
func (w *WindowStore) loadSeq() error {
	return w.s.Range(nil, nil, func(k, _ []byte) bool {
		if _, start, seq, err := SplitWindowKey(k); err == nil {
			w.seq = max(w.seq, seq)
			w.maxStart = max(w.maxStart, start)
		}
		return true
	})
}

// MaxStart is the latest window start put, or (with RetainDuplicates)
// found in the store when it was opened; -1 when none. A stream–stream
// join store's own stream time (Kafka Streams' observedStreamTime, which
// a restore rebuilds from the restored records too).
func (w *WindowStore) MaxStart() int64 { return w.maxStart }

// Get returns the value of key's window at windowStart, nil when absent
// (without RetainDuplicates).
func (w *WindowStore) Get(key []byte, windowStart int64) ([]byte, error) {
	if w.neverPut(key, windowStart) {
		missedGet(w.s)
		return nil, nil
	}
	return w.s.Get(w.key(key, windowStart, 0))
}

// stamp records a put of key's window at windowStart in the stamps.
func (w *WindowStore) stamp(key []byte, windowStart int64) {
	if s := w.stamps(); s != nil {
		s.put(key, windowStart)
	}
}

// key builds a window key in the scratch buffer, valid until the next
// call: the layers below copy the keys they keep.
func (w *WindowStore) key(key []byte, windowStart int64, seq uint32) []byte {
	k := binary.BigEndian.AppendUint64(append(w.scratch[:0], key...), uint64(windowStart))
	w.scratch = binary.BigEndian.AppendUint32(k, seq)
	return w.scratch
}

// Put sets the value of key's window at windowStart; a nil value deletes
// it (ignored with RetainDuplicates). Windows older than the last Purge
// are dropped, as Kafka Streams drops writes to expired segments: see
// Dropped.
func (w *WindowStore) Put(key []byte, windowStart int64, value []byte) error {
	if windowStart < 0 {
		return fmt.Errorf("state: window start %d must be >= 0", windowStart)
	}
	if windowStart < w.expired {
		w.dropped++
		return nil
	}
	w.maxStart = max(w.maxStart, windowStart)
	if !w.duplicates {
		w.stamp(key, windowStart)
		return w.s.Put(w.key(key, windowStart, 0), value)
	}
	if value == nil {
		return nil
	}
	w.seq++
	return putNew(w.s, w.key(key, windowStart, w.seq), value)
}

// Fetch calls fn for key's windows starting in [from, to], by start time.
func (w *WindowStore) Fetch(key []byte, from, to int64, fn func(windowStart int64, value []byte) bool) error {
	if to < max(from, 0) {
		return nil
	}
	start, end := WindowKey(key, max(from, 0), 0), windowEnd(key, to)
	return rangeWindows(w.s, start, end, max(from, 0), to, func(k, v []byte) bool {
		if len(k) != len(key)+windowSuffix || !bytes.HasPrefix(k, key) {
			return true // a longer key that shares key's bytes
		}
		_, ts, _, _ := SplitWindowKey(k)
		return fn(ts, v)
	})
}

// windowEnd is the exclusive range end after key's windows up to to.
func windowEnd(key []byte, to int64) []byte {
	if to == math.MaxInt64 {
		return keySuccessor(key)
	}
	return WindowKey(key, to+1, 0)
}

// FetchAll calls fn for every window starting in [from, to], in store-key
// order (by key, then start time, except that a key's windows may
// interleave with those of longer keys it prefixes). It scans the whole
// store.
func (w *WindowStore) FetchAll(from, to int64, fn func(key []byte, windowStart int64, value []byte) bool) error {
	return w.s.Range(nil, nil, func(k, v []byte) bool {
		key, ts, _, err := SplitWindowKey(k)
		if err != nil || ts < from || ts > to {
			return true
		}
		return fn(key, ts, v)
	})
}

// Purge deletes the windows starting before before (stream time minus
// retention) from the local store and cache, and drops later Puts of such
// windows. It scans the store (with UseSegments, only the segments that
// can hold such windows), so call it when stream time crosses a segment
// boundary (say every retention/10), not per record. No changelog
// tombstones are sent: like Kafka Streams dropping
// segments, the changelog topic expires them itself (cleanup.policy
// compact,delete with retention.ms = store retention + 1 day).
func (w *WindowStore) Purge(before int64) error {
	if before <= w.expired {
		return nil
	}
	w.expired = before
	return w.s.(purger).purge(func(k []byte) bool {
		_, ts, _, err := SplitWindowKey(k)
		return err == nil && ts < before
	}, before)
}

// UseSegments keeps the store's partition in the segmented layout
// (window_segments.go) with segments of interval ms of window start, so a
// Purge visits only the segments holding expired windows instead of every
// window: call it once, right after opening the store, with about the
// stream time between Purges. A partition already segmented keeps its
// own interval; one written in the plain layout (by an older version, or
// restored before the store was opened) is rewritten in one batch. What
// the store returns is the same in either layout. The cache indexes its
// windows by the same interval, so a Purge visits only its entries of
// those segments too (caching_purge.go). Over layers other than the DB's
// own stack it does nothing.
func (w *WindowStore) UseSegments(interval int64) error {
	if c := cacheUnder(w.s); c != nil && interval > 0 {
		c.segmentWindows(interval)
	}
	ps := pebbleUnder(w.s)
	if ps == nil {
		return nil
	}
	return ps.useSegments(interval)
}

// pebbleUnder is the Pebble layer of s, a stack from openStack; nil for
// unknown layers.
func pebbleUnder(s Store) *pebbleStore {
	for {
		switch l := s.(type) {
		case *meteredStore:
			s = l.inner
		case *cachingStore:
			s = l.inner
		case *changeloggingStore:
			s = l.inner
		case *pebbleStore:
			return l
		default:
			return nil
		}
	}
}

// cacheUnder is the caching layer of s, a stack from openStack; nil
// when it has none or for unknown layers.
func cacheUnder(s Store) *cachingStore {
	for {
		switch l := s.(type) {
		case *meteredStore:
			s = l.inner
		case *cachingStore:
			return l
		default:
			return nil
		}
	}
}

// Dropped counts Puts dropped because their window had expired.
func (w *WindowStore) Dropped() int64 { return w.dropped }

// Flush is Store.Flush.
func (w *WindowStore) Flush() error { return w.s.Flush() }

// Close is Store.Close.
func (w *WindowStore) Close() error { return w.s.Close() }
