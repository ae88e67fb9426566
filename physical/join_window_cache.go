package physical

import (
	"math"
	"slices"
)

// windowCacheBudget bounds the bytes (estimated) one side's windowCache
// holds; past it the oldest buckets go and reads before them use the
// store.
const windowCacheBudget = 16 << 20

// windowCache keeps the decoded rows a stream–stream join side put
// recently, so that the other side's lookups within the window, almost
// all of them near stream time, need no store read (a range seek over
// every Pebble level) nor JSON decoding. It holds every row of the store
// whose time is at least low, in one-window-wide buckets by time; older
// buckets are evicted once the newest row is span past them or the
// budget is exceeded, raising low. A fetch from before low reads the
// store, which keeps every row (and is what a restart restores).
type windowCache struct {
	span, width int64
	low, newest int64
	buckets     map[int64]map[string][]streamMatch
	order       []int64 // bucket ids, ascending
	bytes       int
	budget      int
}

// newWindowCache caches rows for a window of before + after: span keeps
// twice that behind the newest row (lookups from the other side, which
// may lag this one's input a little).
func newWindowCache(before, after int64, budget int) *windowCache {
	w := max(before+after, 1000)
	return &windowCache{span: 2 * w, width: w, low: math.MinInt64, newest: math.MinInt64,
		buckets: map[int64]map[string][]streamMatch{}, budget: budget}
}

// put caches a row the store has just kept (vals are copied).
func (c *windowCache) put(key []byte, vals []any, ts int64) {
	if ts < c.low {
		return
	}
	b := c.bucketOf(ts)
	m, ok := c.buckets[b]
	if !ok {
		m = map[string][]streamMatch{}
		c.buckets[b] = m
		i, _ := slices.BinarySearch(c.order, b)
		c.order = slices.Insert(c.order, i, b)
	}
	m[string(key)] = append(m[string(key)], streamMatch{values: slices.Clone(vals), time: ts})
	c.bytes += rowBytes(len(key), vals)
	c.newest = max(c.newest, ts)
	c.evict()
}

// restart empties the cache for a store whose newest row is at newest
// and returns the time from which it must be filled (put) again.
func (c *windowCache) restart(newest int64) int64 {
	c.buckets, c.order, c.bytes = map[int64]map[string][]streamMatch{}, nil, 0
	c.newest = newest
	c.low = newest - c.span
	return c.low
}

// fetch returns key's rows with time in [from, to], by time then put
// order as the store returns them; ok is false when the cache may miss
// some (from is before low).
func (c *windowCache) fetch(key []byte, from, to int64) (out []streamMatch, ok bool) {
	if from < c.low {
		return nil, false
	}
	for b := c.bucketOf(from); b <= c.bucketOf(to); b++ {
		for _, r := range c.buckets[b][string(key)] {
			if r.time >= from && r.time <= to {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b streamMatch) int {
		switch {
		case a.time < b.time:
			return -1
		case a.time > b.time:
			return 1
		}
		return 0
	})
	return out, true
}

// evict drops the oldest buckets while they end span before the newest
// row or the cache is over budget.
func (c *windowCache) evict() {
	for len(c.order) > 0 {
		b := c.order[0]
		end := (b + 1) * c.width // the bucket holds [b·width, end)
		if end > c.newest-c.span && c.bytes <= c.budget {
			return
		}
		for k, rows := range c.buckets[b] {
			for _, r := range rows {
				c.bytes -= rowBytes(len(k), r.values)
			}
		}
		delete(c.buckets, b)
		c.order = c.order[1:]
		c.low = max(c.low, end)
	}
}

func (c *windowCache) bucketOf(ts int64) int64 {
	if ts < 0 {
		return (ts+1)/c.width - 1
	}
	return ts / c.width
}

// rowBytes estimates a cached row's memory: its slices, interface words
// and string bytes.
func rowBytes(keyLen int, vals []any) int {
	n := 64 + keyLen + 16*len(vals)
	for _, v := range vals {
		if s, ok := v.(string); ok {
			n += len(s)
		}
	}
	return n
}
