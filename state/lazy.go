package state

// Lazy is a value a task keeps decoded: the cache holds it as the task
// put it and makes its bytes only when they are needed — when the entry
// is written down (WriteCached, Flush, eviction), read by Get or Range —
// so a hot key updated on every record is encoded once per write-down,
// not once per update (an aggregation's accumulators: a COUNT_DISTINCT
// sketch is kilobytes). Its bytes are what a Put of them would have
// written: the changelog, Pebble and restore see no difference.
//
// A Lazy is immutable once put: the cache may encode it at any later
// write-down.
type Lazy interface {
	// AppendBytes appends the value's bytes to dst.
	AppendBytes(dst []byte) ([]byte, error)
	// Size estimates the value's bytes, for the cache's size bound until
	// they are made.
	Size() int
}

// lazyStore is implemented by the layers that keep Lazy values: the
// caching layer, and the metered layer, which forwards.
type lazyStore interface {
	putLazy(key []byte, v Lazy) error
	getLazy(key []byte) (Lazy, []byte, error)
}

// PutLazy sets key to v. A store without a cache gets v's bytes at once.
func PutLazy(s Store, key []byte, v Lazy) error {
	if ls, ok := s.(lazyStore); ok {
		return ls.putLazy(key, v)
	}
	b, err := v.AppendBytes(nil)
	if err != nil {
		return err
	}
	return s.Put(key, b)
}

// GetLazy returns the Lazy value last put under key while the cache still
// holds it, else (nil and) the bytes Get returns.
func GetLazy(s Store, key []byte) (Lazy, []byte, error) {
	if ls, ok := s.(lazyStore); ok {
		return ls.getLazy(key)
	}
	b, err := s.Get(key)
	return nil, b, err
}

func (s *meteredStore) putLazy(key []byte, v Lazy) error {
	s.m.puts.Add(1)
	s.m.bytesWritten.Add(int64(len(key) + v.Size()))
	return PutLazy(s.inner, key, v)
}

func (s *meteredStore) getLazy(key []byte) (Lazy, []byte, error) {
	l, b, err := GetLazy(s.inner, key)
	s.m.gets.Add(1)
	switch {
	case l != nil:
		s.m.hits.Add(1)
		s.m.bytesRead.Add(int64(len(key) + l.Size()))
	case b != nil:
		s.m.hits.Add(1)
		s.m.bytesRead.Add(int64(len(key) + len(b)))
	}
	return l, b, err
}

func (s *cachingStore) putLazy(key []byte, v Lazy) error {
	if s.max == 0 {
		b, err := v.AppendBytes(nil)
		if err != nil {
			return err
		}
		return s.writeDown(key, b, unknown)
	}
	missed := s.hasMissed && string(key) == string(s.missed)
	s.hasMissed = false
	if e := s.upsert(key, nil, v, true); missed && e.below == unknown {
		e.below = absent
	}
	return s.shrink()
}

func (s *cachingStore) getLazy(key []byte) (Lazy, []byte, error) {
	if e := s.lookup(key); e != nil && e.lazy != nil {
		return e.lazy, nil, nil
	}
	b, err := s.Get(key)
	return nil, b, err
}

// valueOf is e's value, made from its Lazy value first if need be (the
// entry keeps both; the size bound counts the bytes from then on).
func (s *cachingStore) valueOf(e *cacheEntry) ([]byte, error) {
	if e.value != nil || e.lazy == nil {
		return e.value, nil
	}
	before := e.bytes()
	b, err := e.lazy.AppendBytes(nil)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	e.value = b
	s.size += e.bytes() - before
	return b, nil
}

// writeValue is the bytes to write e down with: its value, or its Lazy
// value's bytes made into a buffer reused by the next call (the layers
// below copy what they keep). The entry does not keep those: the next
// update of a hot key replaces them unread, and a read makes them again
// (valueOf).
func (s *cachingStore) writeValue(e *cacheEntry) ([]byte, error) {
	if e.value != nil || e.lazy == nil {
		return e.value, nil
	}
	before := e.bytes()
	b, err := e.lazy.AppendBytes(s.valBuf[:0])
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	s.valBuf = b
	s.size += e.bytes() - before // the Lazy's Size may have learnt its bytes
	return b, nil
}

// GetLazy is Get of a window that may hold a Lazy value (GetLazy).
func (w *WindowStore) GetLazy(key []byte, windowStart int64) (Lazy, []byte, error) {
	if w.neverPut(key, windowStart) {
		missedGet(w.s)
		return nil, nil, nil
	}
	return GetLazy(w.s, w.key(key, windowStart, 0))
}

// PutLazy is Put of a Lazy value (PutLazy); with RetainDuplicates its
// bytes are made at once.
func (w *WindowStore) PutLazy(key []byte, windowStart int64, v Lazy) error {
	if w.duplicates || windowStart < 0 || windowStart < w.expired {
		b, err := v.AppendBytes(nil)
		if err != nil {
			return err
		}
		return w.Put(key, windowStart, b)
	}
	w.maxStart = max(w.maxStart, windowStart)
	if w.neverPut(key, windowStart) {
		w.newer.put(key, windowStart)
		return putLazyAbsent(w.s, w.key(key, windowStart, 0), v)
	}
	w.stamp(key, windowStart)
	return PutLazy(w.s, w.key(key, windowStart, 0), v)
}
