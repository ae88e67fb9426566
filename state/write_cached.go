package state

import "github.com/cockroachdb/pebble/v2"

// cacheWriter is implemented by the layers that can write their cache
// down without committing: the metered layer forwards, the caching layer
// writes.
type cacheWriter interface {
	writeCached() error
}

// WriteCached writes the dirty entries of s's cache down, least recently
// written first, as Flush does, but does not commit them: each goes to
// the changelog (Changelog.Send) and into the store's uncommitted Pebble
// batch, and stays in the cache, clean. A store without a cache has
// nothing to write.
//
// The at-least-once runtime calls it before it produces the output
// records a task emitted since the last call, so a store's changelog
// record is always in the producer's queue ahead of the outputs derived
// from it: state restored from the changelog after a crash is never older
// than what the sink already shows.
//
// The cache may evict those entries before the commit, and a later read
// must still find them. The Pebble layer of a store that is not
// transactional does not mirror them in its pending map (an insert per
// written entry, and the map's growth, on the path of every record of a
// windowed aggregation, whose windows are each written once): it marks
// its batch hidden instead, and commits it early (without sync, as a
// Range does) before the first point read its key filter cannot answer,
// or when the next write-back starts: within one write-back every key is
// written once, so its existence lookups need not see the hidden writes
// before them. So a write-back costs at most one early commit. A transactional
// store (or one with a FlushListener, which reads every key it writes
// down) keeps them tracked.
func WriteCached(s Store) error {
	if cw, ok := s.(cacheWriter); ok {
		return cw.writeCached()
	}
	return nil
}

func (s *meteredStore) writeCached() error { return WriteCached(s.inner) }

// writeCached writes every dirty entry down (writeDirty) with the Pebble
// layer hiding the writes (see WriteCached).
func (s *cachingStore) writeCached() error {
	if s.dirty == 0 {
		return nil
	}
	if fw, ok := s.inner.(flushWriter); ok && s.listener == nil {
		if err := fw.writingBack(true); err != nil {
			return err
		}
		defer fw.writingBack(false)
	}
	return s.writeDirty()
}

// writeDirty writes every dirty entry down and keeps it clean (a delete
// leaves the cache, as in Flush).
func (s *cachingStore) writeDirty() error {
	for e := s.firstDirty(); e != nil; {
		next := s.after(e)
		if e.dirty {
			v, err := s.writeValue(e)
			if err != nil {
				return err
			}
			if err := s.writeDown(s.keyBytes(e), v, e.below); err != nil {
				return err
			}
			e.dirty, e.below = false, presenceOf(v)
			s.dirty--
			if v == nil {
				s.drop(e)
			}
		}
		e = next
	}
	return nil
}

func (s *changeloggingStore) writingBack(on bool) error {
	if fw, ok := s.inner.(flushWriter); ok {
		return fw.writingBack(on)
	}
	return nil
}

// writingBack hides the writes of a cache write-back from pending,
// unless the store is transactional (its batch outlives the write-back
// until CommitTransaction, and point reads of a hidden batch would have
// to index it). A write-back starting over the hidden writes of the one
// before commits them first.
func (s *pebbleStore) writingBack(on bool) error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	s.hiding = on && !s.txn
	if s.hiding && s.hidden {
		return s.commit(pebble.NoSync)
	}
	return nil
}

// tracks reports whether a write now goes into pending; s.mu is held.
func (s *pebbleStore) tracks() bool { return !s.untracked && !s.hiding }

// revealFor commits a hidden batch before a point read of full key k,
// unless the key filter knows k was never written (then neither the
// batch nor the DB holds it) or a write-back is under way (its hidden
// writes are of other keys); s.mu is held.
func (s *pebbleStore) revealFor(k []byte) error {
	if !s.hidden || s.hiding || s.neverWritten(k) {
		return nil
	}
	return s.commit(pebble.NoSync)
}
