package state

import (
	"bytes"

	"github.com/cockroachdb/pebble/v2"
)

// knownPutter is implemented by layers that can take a write whose key's
// presence below is already known (the cache learned it when it read the
// key), sparing the Pebble layer its existence lookup for the key count.
type knownPutter interface {
	putKnown(key, value []byte, below presence) error
}

// flushWriter is implemented by layers that can take the writes of a
// cache flush untracked: the cache keeps every entry it writes down and
// commits right after, so nothing reads those writes back from below
// before the commit, and the Pebble layer need not mirror them in its
// pending map.
type flushWriter interface {
	flushing(on bool)
	// writingBack is the same for a write-back (WriteCached), after
	// which the cache may evict what it wrote before the commit: see
	// WriteCached for how the Pebble layer still serves those reads.
	writingBack(on bool) error
}

func (s *changeloggingStore) flushing(on bool) {
	if fw, ok := s.inner.(flushWriter); ok {
		fw.flushing(on)
	}
}

// flushing applies to a transactional store too, though its batch
// outlives the cache flush until CommitTransaction: a clean cache entry
// evicted before the commit must still be read back from the batch, so
// its untracked writes mark it unmirrored and point reads then go through
// the batch itself. The exactly-once runner commits right after the flush
// and reads nothing in between, so each flushed record saves a pending
// map insert and the map's growth.
func (s *pebbleStore) flushing(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.untracked = on
}

// putDown writes through inner, passing what is known about the key.
func putDown(inner Store, key, value []byte, below presence) error {
	if kp, ok := inner.(knownPutter); ok && below != unknown {
		return kp.putKnown(key, value, below)
	}
	return inner.Put(key, value)
}

// putNew writes a key its caller knows was never written and will never
// read back by key: a duplicates window store's key, whose sequence
// number is past every one in the store (its reads are ranges). Each
// layer passes that on (fresh), so the Pebble layer skips the existence
// lookup of its key count (a point read of Pebble whenever the
// partition's key filter cannot rule the key out) and, uncached, the
// pending map that mirrors the batch for point reads.
func putNew(s Store, key, value []byte) error {
	if kp, ok := s.(knownPutter); ok {
		return kp.putKnown(key, value, fresh)
	}
	return s.Put(key, value)
}

func (s *meteredStore) putKnown(key, value []byte, below presence) error {
	s.count(key, value)
	return putDown(s.inner, key, value, below)
}

// putKnown is Put with the key's presence below known: a cached entry
// remembers it (a fresh key as merely absent: an entry the cache evicts
// may be read back through the pending map), an uncached store (size 0)
// writes straight down with it.
func (s *cachingStore) putKnown(key, value []byte, below presence) error {
	if s.max == 0 {
		return s.writeDown(key, value, below)
	}
	if below == fresh {
		below = absent
	}
	s.hasMissed = false
	if e := s.upsert(key, bytes.Clone(value), nil, true); e.below == unknown {
		e.below = below
	}
	return s.shrink()
}

// presence is what a cache entry knows about its key below.
type presence int8

const (
	unknown presence = iota
	absent
	present
	// fresh: absent, and never read back by key before its batch
	// commits (putNew), so the Pebble layer need not mirror the write.
	fresh
)

func presenceOf(v []byte) presence {
	if v == nil {
		return absent
	}
	return present
}

func (s *changeloggingStore) putKnown(key, value []byte, below presence) error {
	if err := s.check(key, value); err != nil {
		return err
	}
	if err := putDown(s.inner, key, value, below); err != nil {
		return err
	}
	s.send(key, value)
	return nil
}

func (s *pebbleStore) putKnown(key, value []byte, below presence) error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	if below == fresh && !s.untracked {
		// As a cache flush's writes (flushWriter): unmirrored, and a
		// transactional store's point reads go through its batch.
		s.untracked = true
		defer func() { s.untracked = false }()
	}
	if err := s.writeKnown(s.fullKey(key), value, below == present); err != nil {
		return err
	}
	if s.batch.Len() > maxBatchBytes {
		return s.commit(pebble.NoSync)
	}
	return nil
}
