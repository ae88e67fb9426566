package state

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// sessionSuffix is the session end and start (8 bytes each) after the
// record key: Kafka Streams' SessionKeySchema.
const sessionSuffix = 16

// SessionKey is the store (and changelog) key of a session:
//
//	<key> <end, 8 bytes big-endian> <start, 8 bytes big-endian>
//
// A key's sessions sort together by end time, so the sessions that can
// still merge with a new record (end >= its time - gap) are one range.
func SessionKey(key []byte, start, end int64) []byte {
	k := make([]byte, 0, len(key)+sessionSuffix)
	k = binary.BigEndian.AppendUint64(append(k, key...), uint64(end))
	return binary.BigEndian.AppendUint64(k, uint64(start))
}

// SplitSessionKey is the inverse of SessionKey.
func SplitSessionKey(k []byte) (key []byte, start, end int64, err error) {
	if len(k) < sessionSuffix {
		return nil, 0, 0, fmt.Errorf("state: session key %x is shorter than %d bytes", k, sessionSuffix)
	}
	n := len(k) - sessionSuffix
	return k[:n], int64(binary.BigEndian.Uint64(k[n+8:])), int64(binary.BigEndian.Uint64(k[n:])), nil
}

// SessionStore keeps values per (key, session start, session end) over a
// Store. Like a Store it belongs to one task goroutine.
type SessionStore struct {
	s Store
	// newer rules out key's sessions ending at or after a time past every
	// session end put for keys of its bucket (windowStamps, by end), so a
	// record that starts a new session reads nothing; nil when off (the
	// store held sessions when opened). stampsChecked once looked at.
	newer         *windowStamps
	stampsChecked bool
}

// stamps starts the table on the first call if the store is empty.
func (s *SessionStore) stamps() *windowStamps {
	if !s.stampsChecked {
		s.stampsChecked = true
		if storeEmpty(s.s) {
			s.newer = newWindowStamps(stampsFirstBuckets)
		}
	}
	return s.newer
}

// SessionStore opens id as a session store over the Store stack.
func (d *DB) SessionStore(id StoreID, opts ...StoreOption) (*SessionStore, error) {
	s, _, err := d.openStack(id, opts)
	if err != nil {
		return nil, err
	}
	return &SessionStore{s: s}, nil
}

// Put sets the value of key's session [start, end].
func (s *SessionStore) Put(key []byte, start, end int64, value []byte) error {
	if start < 0 || end < start {
		return fmt.Errorf("state: session [%d, %d] must have 0 <= start <= end", start, end)
	}
	if st := s.stamps(); st != nil {
		st.put(key, end)
	}
	return s.s.Put(SessionKey(key, start, end), value)
}

// Remove deletes key's session [start, end] (a changelog tombstone, as in
// Kafka Streams, since merged sessions must disappear downstream too).
func (s *SessionStore) Remove(key []byte, start, end int64) error {
	return s.s.Put(SessionKey(key, start, end), nil)
}

// Get returns the value of key's session [start, end], nil when absent.
func (s *SessionStore) Get(key []byte, start, end int64) ([]byte, error) {
	return s.s.Get(SessionKey(key, start, end))
}

// FindSessions calls fn for key's sessions with end >= earliestEnd and
// start <= latestStart, by end time.
func (s *SessionStore) FindSessions(key []byte, earliestEnd, latestStart int64, fn func(start, end int64, value []byte) bool) error {
	lo := SessionKey(key, 0, max(earliestEnd, 0))
	if st := s.stamps(); st != nil && st.never(key, max(earliestEnd, 0)) {
		if invariants {
			s.checkNoSession(key, lo)
		}
		countRange(s.s)
		return nil
	}
	return s.s.Range(lo, keySuccessor(key), func(k, v []byte) bool {
		if len(k) != len(key)+sessionSuffix || !bytes.HasPrefix(k, key) {
			return true
		}
		_, start, end, _ := SplitSessionKey(k)
		if start > latestStart {
			return true
		}
		return fn(start, end, v)
	})
}

// Purge deletes sessions that ended before before (stream time minus
// retention) locally, without changelog tombstones (see WindowStore.Purge).
func (s *SessionStore) Purge(before int64) error {
	return s.s.(purger).purge(func(k []byte) bool {
		_, _, end, err := SplitSessionKey(k)
		return err == nil && end < before
	}, 0)
}

// Flush is Store.Flush.
func (s *SessionStore) Flush() error { return s.s.Flush() }

// Close is Store.Close.
func (s *SessionStore) Close() error { return s.s.Close() }

// checkNoSession panics if key has a session from lo on, which its
// stamps ruled out. Only with invariants on.
func (s *SessionStore) checkNoSession(key, lo []byte) {
	below := s.s
	if m, ok := below.(*meteredStore); ok {
		below = m.inner // not counted in the store's metrics
	}
	err := below.Range(lo, keySuccessor(key), func(k, _ []byte) bool {
		if len(k) == len(key)+sessionSuffix && bytes.HasPrefix(k, key) {
			panic(fmt.Sprintf("state: session %x is stored but its stamps ruled it out", k))
		}
		return true
	})
	if err != nil {
		panic(err)
	}
}
