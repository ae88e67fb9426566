package state

// cacheWriter is implemented by the layers that can write their cache
// down without committing: the metered layer forwards, the caching layer
// writes.
type cacheWriter interface {
	writeCached() error
}

// WriteCached writes the dirty entries of s's cache down, least recently
// written first, as Flush does, but commits nothing: each goes to the
// changelog (Changelog.Send) and into the store's uncommitted Pebble
// batch, and stays in the cache, clean. A store without a cache has
// nothing to write.
//
// The at-least-once runtime calls it before it produces the output
// records a task emitted since the last call, so a store's changelog
// record is always in the producer's queue ahead of the outputs derived
// from it: state restored from the changelog after a crash is never older
// than what the sink already shows. Unlike Flush the writes stay
// tracked by the Pebble layer, which keeps serving point reads of them
// until the commit, should the cache evict them first.
func WriteCached(s Store) error {
	if cw, ok := s.(cacheWriter); ok {
		return cw.writeCached()
	}
	return nil
}

func (s *meteredStore) writeCached() error { return WriteCached(s.inner) }

// writeCached writes every dirty entry down and keeps it clean (a delete
// leaves the cache, as in Flush).
func (s *cachingStore) writeCached() error {
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
