package state

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// cachedEntry is what a test compares of a cache entry.
type cachedEntry struct {
	value string
	live  bool
	dirty bool
}

// cacheContents is every cached entry by key, checking the cache's
// bookkeeping (size, dirty count, entry table, last) against the ring.
func cacheContents(t *testing.T, c *cachingStore) map[string]cachedEntry {
	t.Helper()
	out := map[string]cachedEntry{}
	var size int64
	dirty := 0
	lastSeen := c.last == nil
	for e := c.front(); e != nil; e = c.after(e) {
		v, err := c.valueOf(e)
		must(t, err)
		out[e.key] = cachedEntry{value: string(v), live: e.live(), dirty: e.dirty}
		size += e.bytes()
		if e.dirty {
			dirty++
		}
		if c.entries.get([]byte(e.key)) != e {
			t.Fatalf("entry %x is in the ring but not the table", e.key)
		}
		lastSeen = lastSeen || c.last == e
	}
	if size != c.size || dirty != c.dirty || len(out) != c.entries.len() || !lastSeen {
		t.Fatalf("cache bookkeeping: size %d (ring %d), dirty %d (ring %d), table %d (ring %d), last in ring %v",
			c.size, size, c.dirty, dirty, c.entries.len(), len(out), lastSeen)
	}
	return out
}

// checkWindowIndex checks that the index holds exactly the ring's
// entries with WindowKeys, each in its segment at its slot.
func checkWindowIndex(t *testing.T, c *cachingStore) {
	t.Helper()
	x := c.windows
	if x == nil {
		return
	}
	indexed := 0
	for seg, g := range x.segments {
		if len(g.entries) == 0 {
			t.Fatalf("segment %d is empty but kept", seg)
		}
		indexed += len(g.entries)
	}
	want := 0
	for e := c.front(); e != nil; e = c.after(e) {
		seg, ok := x.startSegment(e.key)
		if !ok {
			if e.slot != -1 {
				t.Fatalf("short key %x has slot %d", e.key, e.slot)
			}
			continue
		}
		want++
		g := x.segments[seg]
		if g == nil || e.slot < 0 || int(e.slot) >= len(g.entries) || g.entries[e.slot] != e {
			t.Fatalf("entry %x (segment %d, slot %d) is not at its place in the index", e.key, seg, e.slot)
		}
	}
	if indexed != want {
		t.Fatalf("the index holds %d entries, the ring %d window keys", indexed, want)
	}
}

// TestIndexedPurgeDropsWhatTheFullWalkDrops fills two window stores'
// small caches with the same windows over a hundred segments, in random
// order, some flushed (clean), some deleted, some read back in, many
// evicted: one indexes its windows by segment (UseSegments), the other
// purges by walking the whole cache. After each purge the indexed cache
// holds exactly its windows starting at or after the cutoff, the same
// entries as the full walk's (values, dirty flags, bookkeeping), and
// what both stores return is the same.
func TestIndexedPurgeDropsWhatTheFullWalkDrops(t *testing.T) {
	const (
		interval = 1000
		span     = 100 * interval
		keys     = 40
		step     = span/10 + 370 // a cutoff inside a segment, so its own is purged in part
	)
	indexed, err := memDB(t).WindowStore(testID, WithCache(48<<10))
	must(t, err)
	defer indexed.Close()
	must(t, indexed.UseSegments(interval))
	walked, err := memDB(t).WindowStore(testID, WithCache(48<<10))
	must(t, err)
	defer walked.Close()
	ic, wc := cacheUnder(indexed.s), cacheUnder(walked.s)
	if ic == nil || wc == nil || wc.windowInterval != 0 {
		t.Fatal("the stores' caches were not found as expected")
	}
	rng := rand.New(rand.NewPCG(21, 5))
	both := func(f func(w *WindowStore) error) {
		t.Helper()
		must(t, f(indexed))
		must(t, f(walked))
	}
	before, evicted := int64(0), 0
	for round := range 12 {
		for range 600 {
			key := fmt.Appendf(nil, "k%02d", rng.IntN(keys))
			start := before + rng.Int64N(span/2) // windows open anywhere ahead of the cutoff, out of order
			switch op := rng.IntN(20); {
			case op == 0:
				both(func(w *WindowStore) error { return w.Flush() })
			case op < 3:
				both(func(w *WindowStore) error { return w.Put(key, start, nil) })
			case op < 5:
				both(func(w *WindowStore) error { _, err := w.Get(key, start); return err })
			default:
				v := fmt.Appendf(nil, "v%d-%d", round, rng.IntN(1000))
				both(func(w *WindowStore) error { return w.Put(key, start, v) })
			}
		}
		if n := ic.entries.len(); n >= 600 {
			t.Fatalf("the cache holds %d entries: the test must evict some", n)
		}
		evicted += 600 - ic.entries.len()
		want := map[string]cachedEntry{}
		for k, e := range cacheContents(t, ic) {
			if _, start, _, _ := SplitWindowKey([]byte(k)); start >= before+step {
				want[k] = e
			}
		}
		before += step
		both(func(w *WindowStore) error { return w.Purge(before) })
		got := cacheContents(t, ic)
		if !maps.Equal(got, want) {
			t.Fatalf("round %d: after Purge(%d) the indexed cache holds %d entries, want %d:\n got %v\nwant %v",
				round, before, len(got), len(want), slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
		}
		if full := cacheContents(t, wc); !maps.Equal(got, full) {
			t.Fatalf("round %d: the indexed cache holds %d entries, the walked one %d", round, len(got), len(full))
		}
		checkWindowIndex(t, ic)
		if ic.windows == nil {
			t.Fatal("a windowed purge of a segmented store built no index")
		}
		if round%3 == 2 {
			both(func(w *WindowStore) error { return w.Flush() })
		}
		var fetched [2][]string
		for i, w := range []*WindowStore{indexed, walked} {
			must(t, w.FetchAll(0, 1<<62, func(k []byte, start int64, v []byte) bool {
				fetched[i] = append(fetched[i], fmt.Sprintf("%s@%d=%s", k, start, v))
				return true
			}))
		}
		if !slices.Equal(fetched[0], fetched[1]) {
			t.Fatalf("round %d: the stores return different windows:\n%v\n%v", round, fetched[0], fetched[1])
		}
	}
	if evicted == 0 {
		t.Fatal("no entry was evicted")
	}
}

// TestIndexedPurgeKeys: the index reads window starts as match does,
// signed, so a key whose start has the top bit set (negative) is in a
// segment before every other and purged, and a key too short to be a
// WindowKey is in none and never purged; a plain purge (windowsBefore
// 0) still walks the whole cache.
func TestIndexedPurgeKeys(t *testing.T) {
	db := memDB(t)
	ps, err := db.claim(StoreID{App: "a", Name: "s"})
	must(t, err)
	c := newCachingStore(ps, 1<<20, nil)
	defer c.Close()
	c.segmentWindows(1000)
	put := func(k []byte) { must(t, c.Put(k, []byte("v"))) }
	negative := WindowKey([]byte("neg"), -5, 0)
	short := []byte("short")
	put(negative)
	put(short)
	put(WindowKey([]byte("a"), 1500, 0))
	put(WindowKey([]byte("a"), 2500, 0))
	windows := func(k []byte) bool { _, ts, _, err := SplitWindowKey(k); return err == nil && ts < 2000 }
	must(t, c.purge(windows, 2000))
	checkWindowIndex(t, c)
	got := slices.Sorted(maps.Keys(cacheContents(t, c)))
	want := []string{string(WindowKey([]byte("a"), 2500, 0)), "short"}
	if !slices.Equal(got, want) {
		t.Fatalf("after the windowed purge: %x, want %x", got, want)
	}
	put(WindowKey([]byte("b"), 700, 0)) // indexed on insert now
	checkWindowIndex(t, c)
	must(t, c.purge(func(k []byte) bool { return len(k) < windowSuffix }, 0))
	checkWindowIndex(t, c)
	got = slices.Sorted(maps.Keys(cacheContents(t, c)))
	want = []string{string(WindowKey([]byte("a"), 2500, 0)), string(WindowKey([]byte("b"), 700, 0))}
	if !slices.Equal(got, want) {
		t.Fatalf("after the plain purge: %x, want %x", got, want)
	}
}

// BenchmarkWindowCachePurge is a window aggregation's store under its
// cache: each op puts one window of one of 1,000 keys, a new start every
// 1,000 puts (2 s apart), so seven windows a key are live over the 14 s
// retention, with a flush every 1,000 puts and a Purge once per tenth of
// the retention of stream time, as physical's window aggregations do.
// indexed purges through the cache's window index; walk is the same
// store with the index off, walking the whole cache per purge: the
// difference is the index's cost on insert and drop against the walk it
// saves.
func BenchmarkWindowCachePurge(b *testing.B) {
	for _, indexed := range []bool{true, false} {
		name := map[bool]string{true: "indexed", false: "walk"}[indexed]
		b.Run(name, func(b *testing.B) {
			const (
				keys     = 1000
				advance  = 2000 // ms between window starts
				interval = 1400 // the retention (14 s) / 10, as physical's window aggregations
			)
			w, err := memDB(b).WindowStore(testID, WithCache(1<<20))
			must(b, err)
			defer w.Close()
			must(b, w.UseSegments(interval))
			if !indexed {
				cacheUnder(w.s).windowInterval = 0
			}
			key, value := make([]byte, 8), []byte("\x00\x00\x00\x01count")
			purged := int64(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				binary.BigEndian.PutUint64(key, uint64(i%keys))
				start := int64(i/keys) * advance
				must(b, w.Put(key, start, value))
				if i%1000 == 999 {
					must(b, w.Flush())
				}
				if before := start - 14_000; before >= purged+interval {
					purged = before
					must(b, w.Purge(before))
				}
			}
		})
	}
}
