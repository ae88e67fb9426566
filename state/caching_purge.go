package state

import (
	"encoding/binary"
	"fmt"
)

// windowIndex finds a window store cache's entries by the segment of
// their window start (start / interval, rounded down), so a Purge of the
// windows starting before a time visits the segments up to that time's
// instead of every cached entry: the cache holds about a retention of
// windows and a Purge runs once per tenth of it, so the walk called the
// window store's match (SplitWindowKey) on ten entries per one it
// dropped (3.6–5.8% of Nexmark q5's profile). It is what the segmented
// layout (window_segments.go) is to the Pebble layer below.
//
// An entry knows its place in its segment's list (cacheEntry.slot), so
// it leaves the index in constant time when it is dropped (evicted,
// deleted by a Flush, purged); -1 is an entry the index does not hold
// (a key too short to be a WindowKey, which no windowed purge matches).
type windowIndex struct {
	interval int64
	segments map[int64]*windowSegment
}

// windowSegment is the cached entries whose window starts in one
// segment, in no order.
type windowSegment struct {
	entries []*cacheEntry
}

// startSegment is the segment of a WindowKey's start, false for a key
// too short to be one. Starts are read signed, as SplitWindowKey reads
// them, so a purge's match and the index agree on every key.
func (x *windowIndex) startSegment(key string) (int64, bool) {
	if len(key) < windowSuffix {
		return 0, false
	}
	n := len(key) - windowSuffix
	start := int64(binary.BigEndian.Uint64(keyView(key)[n : n+8]))
	return floorDiv(start, x.interval), true
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// add indexes e.
func (x *windowIndex) add(e *cacheEntry) {
	seg, ok := x.startSegment(e.key)
	if !ok {
		e.slot = -1
		return
	}
	g := x.segments[seg]
	if g == nil {
		g = &windowSegment{}
		x.segments[seg] = g
	}
	e.slot = int32(len(g.entries))
	g.entries = append(g.entries, e)
}

// remove takes e out of the index: the last entry of its segment takes
// its place.
func (x *windowIndex) remove(e *cacheEntry) {
	if e.slot < 0 {
		return
	}
	seg, _ := x.startSegment(e.key)
	g := x.segments[seg]
	last := len(g.entries) - 1
	moved := g.entries[last]
	g.entries[e.slot], moved.slot = moved, e.slot
	g.entries[last] = nil
	g.entries = g.entries[:last]
	e.slot = -1
	if last == 0 {
		delete(x.segments, seg)
	}
}

// segmentWindows tells the cache its keys are WindowKeys whose windows
// are purged about every interval ms of start (WindowStore.UseSegments),
// so a windowed purge indexes them (windowIndex), from the first one on.
func (s *cachingStore) segmentWindows(interval int64) {
	if interval > 0 && s.windows == nil {
		s.windowInterval = interval
	}
}

// purge drops matching cached entries unwritten, then purges below. A
// windowed purge (windowsBefore > 0) of a cache told its interval
// visits only the segments up to windowsBefore's (windowIndex, built
// by the first such purge); any other walks the whole cache.
func (s *cachingStore) purge(match func(key []byte) bool, windowsBefore int64) error {
	if windowsBefore > 0 && s.windowInterval > 0 {
		s.purgeWindows(match, windowsBefore)
	} else {
		s.purgeAll(match)
	}
	return s.inner.(purger).purge(match, windowsBefore)
}

// purgeAll drops every matching entry. Every entry's key is shown to
// match without a copy (keyView).
func (s *cachingStore) purgeAll(match func(key []byte) bool) {
	var doomed []*cacheEntry
	for e := s.front(); e != nil; e = s.after(e) {
		if match(keyView(e.key)) {
			doomed = append(doomed, e)
		}
	}
	for _, e := range doomed {
		s.drop(e)
	}
}

// purgeWindows drops the matching entries of the segments that can hold
// windows starting before before: those before its segment and its own.
// Every WindowKey of a window starting before before is in them, and
// match still decides each one, so what is dropped is what purgeAll
// would drop (with invariants on, checked).
func (s *cachingStore) purgeWindows(match func(key []byte) bool, before int64) {
	if s.windows == nil {
		s.windows = &windowIndex{interval: s.windowInterval, segments: make(map[int64]*windowSegment)}
		for e := s.front(); e != nil; e = s.after(e) {
			s.windows.add(e)
		}
	}
	x := s.windows
	last := floorDiv(before, x.interval)
	for seg, g := range x.segments {
		if seg > last {
			continue
		}
		kept := g.entries[:0]
		for _, e := range g.entries {
			if !match(keyView(e.key)) {
				e.slot = int32(len(kept))
				kept = append(kept, e)
				continue
			}
			e.slot = -1 // out of the index already: drop must not look for it
			s.drop(e)
		}
		clear(g.entries[len(kept):])
		g.entries = kept
		if len(kept) == 0 {
			delete(x.segments, seg)
		}
	}
	if invariants {
		for e := s.front(); e != nil; e = s.after(e) {
			if match(keyView(e.key)) {
				panic(fmt.Sprintf("state: cached key %x matches a purge of windows before %d but its segment was not visited", e.key, before))
			}
		}
	}
}
