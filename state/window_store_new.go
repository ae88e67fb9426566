package state

import (
	"cmp"
	"fmt"
	"hash/maphash"
)

// windowStamps answers, for a window store that was empty when it was
// opened, "was a window of this key starting at or after s ever put?"
// without a read: a table of buckets, each the latest window start put
// for the keys hashing to it. A start past its bucket's stamp is a
// window never put, so absent from the cache and from Pebble alike:
// GetLazy returns nothing at once and PutLazy tells the cache the key
// is absent below (no existence lookup when it is written down). A
// tumbling or hopping window's records mostly open new windows (each
// (key, window) is new once per window size), which otherwise cost a
// cache miss, a pending-map probe, a key filter probe and, for the
// filter's false positives, a Pebble get each.
//
// Keys sharing a bucket make it answer "maybe" (then the store is read
// as before): a bucket already stamped with the window a record opens.
// So the table doubles each time half as many stamps were raised as it
// has buckets, up to stampsMaxBuckets, each new bucket taking the stamp
// of the one it split from (the latest start of a superset of its keys:
// still an upper bound). At 250,000 new windows a partition, 15,000 of
// them per window (the TUMBLING benchmark), one record in 35 shares a
// bucket at the largest size. Deletes and purges leave stamps as they are, which only
// makes them more cautious. It needs no scan at open because it starts
// only on an empty store partition (a new query, or state deleted with
// nothing to restore); a store opened with windows in it leaves it off.
//
// A session store keeps the same table by session end: a record whose
// key has no session ending within the gap before it (it starts a new
// session) finds nothing without a Range (a Pebble iterator, and a
// commit of the pending batch, each).
type windowStamps struct {
	seed    maphash.Seed
	buckets []int64 // -1: no window put
	raised  int     // stamps raised since the table last grew
}

const (
	stampsFirstBuckets = 1 << 12 // 32 KiB
	stampsMaxBuckets   = 1 << 18 // 2 MiB
)

func newWindowStamps(buckets int) *windowStamps {
	s := &windowStamps{seed: maphash.MakeSeed(), buckets: make([]int64, buckets)}
	for i := range s.buckets {
		s.buckets[i] = -1
	}
	return s
}

func (s *windowStamps) bucket(key []byte) *int64 {
	return &s.buckets[maphash.Bytes(s.seed, key)&uint64(len(s.buckets)-1)]
}

// never reports that no window of key starting at or after start was put.
func (s *windowStamps) never(key []byte, start int64) bool {
	return start > *s.bucket(key)
}

// put records a window of key starting at start.
func (s *windowStamps) put(key []byte, start int64) {
	b := s.bucket(key)
	if start <= *b {
		return
	}
	*b = start
	if s.raised++; s.raised > len(s.buckets)/2 && len(s.buckets) < stampsMaxBuckets {
		s.grow()
	}
}

// grow doubles the table: bucket i+n (n the old size) holds the keys of
// old bucket i whose next hash bit is set, so both take its stamp.
func (s *windowStamps) grow() {
	s.buckets = append(s.buckets, s.buckets...)
	s.raised = 0
}

// stamps starts the table on the first call if the store partition is
// empty (see windowStamps); nil when off.
func (w *WindowStore) stamps() *windowStamps {
	if !w.stampsChecked {
		w.stampsChecked = true
		if !w.duplicates && storeEmpty(w.s) {
			w.newer = newWindowStamps(cmp.Or(w.firstBuckets, stampsFirstBuckets))
		}
	}
	return w.newer
}

// neverPut reports that key's window at start was never put (stamps).
// With invariants on, it checks the store agrees.
func (w *WindowStore) neverPut(key []byte, start int64) bool {
	s := w.stamps()
	if s == nil || !s.never(key, start) {
		return false
	}
	if invariants {
		below := w.s
		if m, ok := below.(*meteredStore); ok {
			below = m.inner // not counted in the store's metrics
		}
		if v, err := below.Get(WindowKey(key, start, 0)); err != nil || v != nil {
			panic(fmt.Sprintf("state: window %x@%d is stored (%v) but its stamps say it was never put", key, start, err))
		}
	}
	return true
}

// storeEmpty reports that s, an unused stack from openStack, holds
// nothing: an empty cache over a partition whose committed key count is
// 0 and whose batch is empty (the count the DB already trusts to skip
// the key filter's scan, see loadPartition). Unknown layers: false.
func storeEmpty(s Store) bool {
	for {
		switch l := s.(type) {
		case *meteredStore:
			s = l.inner
		case *cachingStore:
			if l.entries.len() != 0 {
				return false
			}
			s = l.inner
		case *changeloggingStore:
			s = l.inner
		case *pebbleStore:
			l.mu.Lock()
			defer l.mu.Unlock()
			return !l.closed && l.part.keys.Load()+l.delta == 0 && len(l.pending) == 0 &&
				(l.batch == nil || l.batch.Empty()) && !l.unmirrored
		default:
			return false
		}
	}
}

// absentLazyPutter is PutLazy of a key known to be absent below the
// cache (neverPut): the cache entry starts out knowing it, so writing it
// down makes no existence lookup, as a put after a Get that missed.
type absentLazyPutter interface {
	putLazyAbsent(key []byte, v Lazy) error
}

func putLazyAbsent(s Store, key []byte, v Lazy) error {
	if p, ok := s.(absentLazyPutter); ok {
		return p.putLazyAbsent(key, v)
	}
	return PutLazy(s, key, v)
}

func (s *meteredStore) putLazyAbsent(key []byte, v Lazy) error {
	s.m.puts.Add(1)
	s.m.bytesWritten.Add(int64(len(key) + v.Size()))
	return putLazyAbsent(s.inner, key, v)
}

func (s *cachingStore) putLazyAbsent(key []byte, v Lazy) error {
	if s.max == 0 {
		b, err := v.AppendBytes(nil)
		if err != nil {
			return err
		}
		return s.writeDown(key, b, absent)
	}
	s.hasMissed = false
	// A window never put has no entry (every put of the window store
	// stamps it, and an entry read in from below was put): no probe.
	if invariants && s.lookup(key) != nil {
		panic(fmt.Sprintf("state: window %x is cached but its stamps say it was never put", key))
	}
	s.insert(key, nil, v, true).below = absent
	return s.shrink()
}

// missedGet counts a Get answered by the stamps as a miss, as the
// metered layer would have.
func missedGet(s Store) {
	if m, ok := s.(*meteredStore); ok {
		m.m.gets.Add(1)
	}
}

// countRange counts a Range the stamps answered (nothing found), as the
// metered layer would have.
func countRange(s Store) {
	if m, ok := s.(*meteredStore); ok {
		m.m.ranges.Add(1)
	}
}
