package state

import (
	"bytes"
	"errors"
	"strings"
	"unsafe"

	"github.com/RaduBerinde/btreemap"
)

// entryOverhead approximates the bookkeeping bytes of one cache entry (map
// slot, list element, entry struct), so many tiny entries still fill the
// cache.
const entryOverhead = 64

// cachingStore is a write-back cache in front of inner. Repeated writes to
// a key overwrite its entry; Flush writes each dirty entry down once,
// least recently written first, and keeps it (clean) so hot keys keep
// hitting the cache across commits, as Kafka Streams' cache does. Reads
// that find a value are cached clean too; a miss is not cached (as in
// Kafka Streams), but the next Put of that key learns it is absent below.
// Past the size bound the least recently written (or read-in) entries are
// evicted, dirty ones written down first.
type cachingStore struct {
	inner   Store
	max     int64
	size    int64
	entries entryTable // every entry, by key (entry_table.go)
	lru     cacheEntry // sentinel of the ring of entries: lru.next is the least recently written
	// ordered indexes the entries holding a value by key, for Range
	// (cached deletes are not in it: a Range finds them in entries when
	// the key comes from below, so deleted keys cost no walk in the
	// cache). Built by the first Range (a store never scanned pays
	// nothing for it), then kept up to date entry by entry.
	ordered  *btreemap.BTreeMap[string, *cacheEntry]
	inRange  []*cacheEntry // reused by Range
	listener FlushListener
	scratch  []byte // an entry's key as bytes for writeDown (layers below copy what they keep)
	valBuf   []byte // a Lazy value's bytes for writeDown (likewise)
	// last is the entry the last Get, GetLazy or Put found or made (nil
	// once dropped): an update reads its key and puts it right after, so
	// the put finds the entry without a second map probe.
	last *cacheEntry
	// missed is the key of the last Get that found nothing (valid while
	// hasMissed): a Put of it right after knows it is absent below.
	missed    []byte
	hasMissed bool
	// dirty counts the entries with dirty set, so a Flush walks only the
	// LRU ring's tail that holds them (firstDirty).
	dirty int
	// windows indexes a window store's entries by window start for its
	// purges, once the first ran; windowInterval is its segment interval
	// (0: not a window store). caching_purge.go.
	windows        *windowIndex
	windowInterval int64
}

type cacheEntry struct {
	prev, next *cacheEntry // the LRU ring
	key        string      // in inline when it fits (setKey)
	value      []byte      // nil: a cached delete (dirty) or absence (clean), unless lazy is set
	lazy       Lazy        // the value as put by PutLazy (its bytes made into value when needed), or nil
	dirty      bool        // written since it was last written down
	below      presence    // whether the key exists below, when known
	slot       int32       // its place in windows (caching_purge.go), -1 if not in it
	inline     [inlineKeyBytes]byte
}

// inlineKeyBytes is the longest key an entry keeps in its own
// allocation: a window or group key is mostly shorter, and every new
// window of a tumbling or hopping aggregation is a new entry, so its key
// would otherwise be a second allocation per record.
const inlineKeyBytes = 32

// setKey sets e's key, in inline when it fits. e is never copied, so
// the string stays valid as long as e.
func (e *cacheEntry) setKey(key []byte) {
	if len(key) == 0 || len(key) > len(e.inline) {
		e.key = string(key)
		return
	}
	n := copy(e.inline[:], key)
	e.key = unsafe.String(&e.inline[0], n)
}

func (e *cacheEntry) bytes() int64 {
	n := len(e.value)
	if e.value == nil && e.lazy != nil {
		n = e.lazy.Size()
	}
	return int64(len(e.key)+n) + entryOverhead
}

// live reports whether e holds a value (not a delete or an absence).
func (e *cacheEntry) live() bool { return e.value != nil || e.lazy != nil }

var (
	_ Store  = (*cachingStore)(nil)
	_ purger = (*cachingStore)(nil)
)

func newCachingStore(inner Store, max int64, listener FlushListener) *cachingStore {
	s := &cachingStore{inner: inner, max: max, entries: newEntryTable(), listener: listener}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s
}

// front is the least recently written entry, nil when there is none.
func (s *cachingStore) front() *cacheEntry {
	if s.lru.next == &s.lru {
		return nil
	}
	return s.lru.next
}

// after is the entry written after e, nil after the last.
func (s *cachingStore) after(e *cacheEntry) *cacheEntry {
	if e.next == &s.lru {
		return nil
	}
	return e.next
}

// pushBack makes e the most recently written entry.
func (s *cachingStore) pushBack(e *cacheEntry) {
	e.prev, e.next = s.lru.prev, &s.lru
	s.lru.prev.next = e
	s.lru.prev = e
}

func unlink(e *cacheEntry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

// Get answers from the cache, else from below (caching a value found).
func (s *cachingStore) Get(key []byte) ([]byte, error) {
	if e := s.lookup(key); e != nil {
		v, err := s.valueOf(e)
		return bytes.Clone(v), err
	}
	v, err := s.inner.Get(key)
	if err != nil || s.max == 0 {
		return v, err
	}
	if v == nil {
		s.missed, s.hasMissed = append(s.missed[:0], key...), true
		return nil, nil
	}
	s.upsert(key, bytes.Clone(v), nil, false).below = present
	return v, s.shrink()
}

// shrink evicts least recently used entries past the size bound.
func (s *cachingStore) shrink() error {
	for s.size > s.max && s.front() != nil {
		if err := s.evict(s.front()); err != nil {
			return err
		}
	}
	return nil
}

// Put absorbs the write into the cache, evicting the least recently
// written entries past the size bound; with size 0 it goes straight down.
func (s *cachingStore) Put(key, value []byte) error {
	if s.max == 0 {
		return s.writeDown(key, value, unknown)
	}
	missed := s.hasMissed && bytes.Equal(key, s.missed)
	s.hasMissed = false
	if e := s.upsert(key, bytes.Clone(value), nil, true); missed && e.below == unknown {
		e.below = absent
	}
	return s.shrink()
}

// lookup is key's entry, or nil; it becomes the last entry.
func (s *cachingStore) lookup(key []byte) *cacheEntry {
	if e := s.last; e != nil && e.key == string(key) {
		return e
	}
	e := s.entries.get(key)
	if e != nil {
		s.last = e
	}
	return e
}

// upsert sets key's entry to value or lazy, creating it (presence below
// unknown) if need be, and returns it.
func (s *cachingStore) upsert(key, value []byte, lazy Lazy, dirty bool) *cacheEntry {
	if e := s.lookup(key); e != nil {
		before, wasLive := e.bytes(), e.live()
		e.value, e.lazy = value, lazy
		s.size += e.bytes() - before
		if dirty && !e.dirty {
			s.dirty++
		}
		e.dirty = e.dirty || dirty
		if dirty {
			unlink(e)
			s.pushBack(e)
		}
		s.index(e, wasLive)
		return e
	}
	return s.insert(key, value, lazy, dirty)
}

// insert makes key's entry, which the cache does not hold, and returns
// it.
func (s *cachingStore) insert(key, value []byte, lazy Lazy, dirty bool) *cacheEntry {
	e := &cacheEntry{value: value, lazy: lazy, dirty: dirty}
	e.setKey(key)
	if dirty {
		s.dirty++
	}
	s.entries.put(e)
	s.last = e
	s.pushBack(e)
	s.size += e.bytes()
	s.index(e, false)
	if s.windows != nil {
		s.windows.add(e)
	}
	return e
}

// index keeps the ordered index up to date after e's value changed
// (wasLive: it held a value before).
func (s *cachingStore) index(e *cacheEntry, wasLive bool) {
	switch live := e.live(); {
	case s.ordered == nil || live == wasLive:
	case live:
		s.ordered.ReplaceOrInsert(e.key, e)
	default:
		s.ordered.Delete(e.key)
	}
}

// evict writes el's entry down if it is dirty and drops it.
func (s *cachingStore) evict(e *cacheEntry) error {
	if e.dirty {
		v, err := s.writeValue(e)
		if err != nil {
			return err
		}
		if err := s.writeDown(s.keyBytes(e), v, e.below); err != nil {
			return err
		}
	}
	s.drop(e)
	return nil
}

// keyBytes is e's key in the scratch buffer, valid until the next call.
func (s *cachingStore) keyBytes(e *cacheEntry) []byte {
	s.scratch = append(s.scratch[:0], e.key...)
	return s.scratch
}

func (s *cachingStore) drop(e *cacheEntry) {
	if e.dirty {
		s.dirty--
	}
	unlink(e)
	s.entries.remove(e)
	if s.last == e {
		s.last = nil
	}
	s.size -= e.bytes()
	if s.ordered != nil && e.live() {
		s.ordered.Delete(e.key)
	}
	if s.windows != nil {
		s.windows.remove(e)
	}
}

// writeDown tells the listener and writes to the lower layers, passing
// on whether the key exists below when the cache knows.
func (s *cachingStore) writeDown(key, value []byte, below presence) error {
	if s.listener != nil {
		old, err := s.inner.Get(key)
		if err != nil {
			return err
		}
		s.listener(key, value, old)
		below = presenceOf(old)
	}
	return putDown(s.inner, key, value, below)
}

// Flush writes every dirty entry down, least recently written first,
// keeps it clean, then flushes below. A delete, once written down, leaves
// the cache: it would be a kept miss, and deleted keys (an EMIT FINAL
// buffer's emitted windows) would pile up in every Range.
func (s *cachingStore) Flush() error {
	if fw, ok := s.inner.(flushWriter); ok {
		fw.flushing(true)
		defer fw.flushing(false)
	}
	if err := s.writeDirty(); err != nil {
		return err
	}
	return s.inner.Flush()
}

// firstDirty is the least recently written dirty entry, nil when there
// is none. A write moves its entry to the ring's end, so the dirty
// entries are among the most recent: the walk back from the end stops
// once it has seen them all, instead of visiting every clean entry.
func (s *cachingStore) firstDirty() *cacheEntry {
	var first *cacheEntry
	for e, seen := s.lru.prev, 0; seen < s.dirty && e != &s.lru; e = e.prev {
		if e.dirty {
			first, seen = e, seen+1
		}
	}
	return first
}

// Close discards the cache (unflushed writes) and closes below.
func (s *cachingStore) Close() error {
	s.entries, s.ordered, s.size, s.dirty, s.last, s.windows = newEntryTable(), nil, 0, 0, nil, nil
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s.inner.Close()
}

// Range merges the cache's entries in [start, end) into the lower
// layers' iteration: a cached value replaces the stored one, a cached
// delete hides it.
func (s *cachingStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	return s.rangeWith(start, end, fn, func(fn func(k, v []byte) bool) error { return s.inner.Range(start, end, fn) })
}

// rangeWith is Range with below ranging [start, end) of the lower layers.
func (s *cachingStore) rangeWith(start, end []byte, fn func(k, v []byte) bool, below func(func(k, v []byte) bool) error) error {
	m := &rangeMerge{s: s, cached: s.cachedIn(start, end), fn: fn}
	defer clear(s.inRange)
	if err := below(m.below); err != nil || m.stopped {
		return errors.Join(err, m.err)
	}
	m.cachedBefore("", true)
	return m.err
}

// rangeMerge walks the cached values in key order alongside the keys
// from below.
type rangeMerge struct {
	s       *cachingStore
	cached  []*cacheEntry
	fn      func(k, v []byte) bool
	stopped bool
	err     error // a Lazy value's bytes could not be made (the walk stopped)
}

// below takes one key from below: cached keys before it go first, a
// cached value of it replaces it and a cached delete hides it.
func (m *rangeMerge) below(k, v []byte) bool {
	if !m.cachedBefore(string(k), false) {
		return false
	}
	if len(m.cached) > 0 && m.cached[0].key == string(k) {
		return m.next()
	}
	if m.s.entries.get(k) != nil { // a cached delete
		return true
	}
	return m.emit(k, v)
}

// cachedBefore emits the cached keys below limit, or all of them.
func (m *rangeMerge) cachedBefore(limit string, all bool) bool {
	for len(m.cached) > 0 && (all || m.cached[0].key < limit) {
		if !m.next() {
			return false
		}
	}
	return true
}

// next emits the first cached value.
func (m *rangeMerge) next() bool {
	e := m.cached[0]
	m.cached = m.cached[1:]
	v, err := m.s.valueOf(e)
	if err != nil {
		m.err, m.stopped = err, true
		return false
	}
	return m.emit([]byte(e.key), v)
}

func (m *rangeMerge) emit(k, v []byte) bool {
	if !m.fn(k, v) {
		m.stopped = true
	}
	return !m.stopped
}

// cachedIn returns the cached values in [start, end) in key order, in a
// buffer reused by the next call (a Range callback may not call the
// store, so no two Ranges overlap).
func (s *cachingStore) cachedIn(start, end []byte) []*cacheEntry {
	if s.ordered == nil {
		s.ordered = btreemap.New[string, *cacheEntry](32, strings.Compare)
		for e := s.front(); e != nil; e = s.after(e) {
			if e.live() {
				s.ordered.ReplaceOrInsert(e.key, e)
			}
		}
	}
	hi := btreemap.Max[string]()
	if end != nil {
		hi = btreemap.LT(string(end))
	}
	out := s.inRange[:0]
	s.ordered.AscendFunc(btreemap.GE(string(start)), hi, func(_ string, e *cacheEntry) bool {
		out = append(out, e)
		return true
	})
	s.inRange = out
	return out
}

// keyView is an entry's key as bytes sharing the string's memory, for a
// purger's match (which only reads it, during the call): the cache's keys
// are immutable strings, so the view must never be written.
func keyView(k string) []byte {
	return unsafe.Slice(unsafe.StringData(k), len(k))
}
