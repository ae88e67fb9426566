package global

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

// Store is a global table's store, written by one follower and read
// by every task of the query: a mutex makes it safe for concurrent use
// (state stores are not). Beside the rows it keeps its local checkpoint,
// as Kafka Streams' global state manager does: the next offset of every
// partition of the topic it has loaded, in the same Pebble store, so
// that the offsets commit in the same batch as the rows they cover:
//
//	0x01 ‖ row key               → row value
//	0x02 ‖ partition (4 bytes)   → next offset (8 bytes)
//
// The offsets are written last before each commit (every
// globalFlushEvery writes and at Flush), so a durable checkpoint never
// runs ahead of durable rows; a restart reads only the records after it.
type Store struct {
	mu     sync.Mutex
	db     *state.DB
	id     state.StoreID
	cache  int64
	store  state.Store
	writes int
	next   map[int32]int64 // partition → next offset loaded, not yet written down
	// loader applies a record to the store (set once the store is open).
	loader *physical.GlobalLoader
	// onLoad observes every record before it is loaded (counts, test
	// hooks); an error fails the load. May be nil.
	onLoad func(r *physical.InRecord) error
	// figs are the store's figures (nil: none kept).
	figs *storeFigures
	// written counts the row writes (and resets) applied, what the
	// tasks' joins compare to the count their row caches caught up with
	// (physical.GlobalWrites); recent holds the keys of the latest
	// writes, the last ones of written counts from recentFrom on
	// (guarded by mu).
	written    atomic.Uint64
	recent     [][]byte
	recentFrom uint64
}

const (
	// recentMax bounds the keys a store remembers for its readers' row
	// caches; a reader further behind drops its whole cache. Kept well
	// above what a loader writes between two records of a task (one
	// fetch's records), so that only a bulk load, with nothing cached
	// yet, empties the caches.
	recentMax             = 8192
	globalFlushEvery      = 4096
	globalRowTag     byte = 0x01
	globalOffsetTag  byte = 0x02
)

// openStore opens the store of id, keeping what it holds.
func openStore(db *state.DB, id state.StoreID, cache int64) (*Store, error) {
	s, err := db.Store(id, state.WithCache(cache))
	if err != nil {
		return nil, err
	}
	return &Store{db: db, id: id, cache: cache, store: s, next: map[int32]int64{}}, nil
}

// Load applies one record of the topic and notes its offset (a control
// record only moves the offset).
func (s *Store) Load(r *physical.InRecord, control bool) error {
	if s.onLoad != nil {
		if err := s.onLoad(r); err != nil {
			return err
		}
	}
	if !control {
		if err := s.loader.Load(r); err != nil {
			return err
		}
		if s.figs != nil {
			s.figs.loaded.Add(1)
		}
	}
	s.mu.Lock()
	s.next[r.Partition] = r.Offset + 1
	s.mu.Unlock()
	return nil
}

// Progress implements exec.FollowProgress: the follower's position and
// the partition's end, for the store's figures.
func (s *Store) Progress(partition int32, position, end int64) {
	s.figs.progress(partition, position, end)
}

// Checkpoint returns the durable next offsets by partition (empty: no
// checkpoint, the store must be rebuilt from the start).
func (s *Store) Checkpoint() (map[int32]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int32]int64{}
	var bad error
	err := s.store.Range([]byte{globalOffsetTag}, []byte{globalOffsetTag + 1}, func(k, v []byte) bool {
		if len(k) != 5 || len(v) != 8 {
			bad = fmt.Errorf("corrupt checkpoint entry %x", k)
			return false
		}
		out[int32(binary.BigEndian.Uint32(k[1:]))] = int64(binary.BigEndian.Uint64(v))
		return true
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// Reset wipes the store (rows and checkpoint) for a full reload.
func (s *Store) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.Close(); err != nil {
		return err
	}
	if err := s.db.Wipe(s.id); err != nil {
		return err
	}
	st, err := s.db.Store(s.id, state.WithCache(s.cache))
	if err != nil {
		return err
	}
	s.store, s.next, s.writes = st, map[int32]int64{}, 0
	s.forgetRecent()
	return nil
}

// forgetRecent counts a change of the store that is no key's (a reset)
// and forgets the keys written before it: every reader behind it drops
// its cache. s.mu is held.
func (s *Store) forgetRecent() {
	clear(s.recent)
	s.recent = s.recent[:0]
	s.recentFrom = s.written.Add(1)
}

// Written implements physical.GlobalWrites.
func (s *Store) Written() uint64 { return s.written.Load() }

// WrittenSince implements physical.GlobalWrites.
func (s *Store) WrittenSince(since uint64, fn func(key []byte)) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.written.Load()
	if since < s.recentFrom {
		return now, false
	}
	for _, k := range s.recent[since-s.recentFrom:] {
		fn(k)
	}
	return now, true
}

// String names the store (exec.FollowStore).
func (s *Store) String() string { return s.id.String() }

func rowKey(key []byte) []byte { return append([]byte{globalRowTag}, key...) }

// Get implements state.Store: the row of key.
func (s *Store) Get(key []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Get(rowKey(key))
}

// Put implements state.Store (the loader's writes).
func (s *Store) Put(key, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.store.Put(rowKey(key), value); err != nil {
		return err
	}
	s.noteWrite(key)
	if s.writes++; s.writes%globalFlushEvery == 0 {
		return s.flush()
	}
	return nil
}

// noteWrite remembers key as the latest write (after the write, so that
// a reader that sees the count reads the row written); past recentMax
// the older half is forgotten. s.mu is held.
func (s *Store) noteWrite(key []byte) {
	if len(s.recent) == recentMax {
		half := recentMax / 2
		n := copy(s.recent, s.recent[half:])
		clear(s.recent[n:])
		s.recent = s.recent[:n]
		s.recentFrom += uint64(half)
	}
	s.recent = append(s.recent, append([]byte(nil), key...))
	s.written.Add(1)
}

// Range implements state.Store over the rows.
func (s *Store) Range(start, end []byte, fn func(k, v []byte) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	hi := []byte{globalRowTag + 1}
	if end != nil {
		hi = rowKey(end)
	}
	return s.store.Range(rowKey(start), hi, func(k, v []byte) bool { return fn(k[1:], v) })
}

// Flush commits the rows and, after them, the offsets they cover.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flush()
}

// flush writes the noted offsets down after the rows, then commits them
// all in one batch; s.mu is held.
func (s *Store) flush() error {
	for p, off := range s.next {
		k := binary.BigEndian.AppendUint32([]byte{globalOffsetTag}, uint32(p))
		if err := s.store.Put(k, binary.BigEndian.AppendUint64(nil, uint64(off))); err != nil {
			return err
		}
	}
	clear(s.next)
	return s.store.Flush()
}

// Close closes the store.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store.Close()
}
