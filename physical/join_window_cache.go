package physical

import (
	"math"
	"slices"
)

// peerHold bounds, in spans, how far behind this side's newest row a
// lagging other side holds the cache's horizon back: an idle other side
// (no rows in this partition, or none for a long time) reads nothing,
// and would only fill the cache to its budget.
const peerHold = 8

// windowCacheBudget bounds the bytes (estimated) one side's windowCache
// holds; past it the oldest rows go and reads before them use the store.
const windowCacheBudget = 16 << 20

// arenaSlots is the number of values in one of the chunks a windowCache
// copies its rows' values into (64 KiB of interface words): one
// allocation per chunk instead of one per row.
const arenaSlots = 4096

// windowCache keeps the decoded rows a stream–stream join side put
// recently, so that the other side's lookups within the window, almost
// all of them near stream time, need no store read (a range seek over
// every Pebble level) nor JSON decoding. It holds every row of the store
// whose time is at least low:
//
//	rows: key ──► [row, row, row]   by time, then put order (the store's)
//	              └─ trimmed below low, all keys at once, when the horizon
//	                 passes the next width boundary (or the budget is hit)
//
// The two sides' caches of a join share one map (windowRows): each key's
// entry holds both sides' rows, so that a stream row's fetch of the other
// side's rows and its own put look the key up once.
//
// The horizon is the older of this side's newest row and the other
// side's (peer), but no more than peerHold spans behind the newest: rows
// are kept span behind it, so that the other side's lookups find them
// even when its input runs minutes behind this one's (two topics polled
// together rarely advance together). A fetch from
// before low reads the store, which keeps every row (and is what a
// restart restores).
type windowCache struct {
	span, width int64
	low, newest int64
	// peer is the other side's newest time (math.MaxInt64: not known,
	// the horizon is this side's newest row).
	peer   int64
	m      *windowRows // shared with the other side's cache (share)
	side   int         // which of an entry's row lists are this side's
	bytes  int
	budget int
	// arena is the chunk the rows' values are copied into (clone): rows
	// are put and trimmed in about time order, so a chunk is garbage
	// about when its last rows leave the cache.
	arena []any
}

// windowRows maps a join key to both sides' cached rows: a stream row's
// fetch of the other side's rows and its own put find the key with one
// map lookup (the memory-bound part of both), not one in each side's
// map. last remembers the entry of the key looked up last (nil: none)
// until an entry is removed.
type windowRows struct {
	byKey   map[string]*keyRows
	lastKey []byte
	last    *keyRows
	lastOK  bool
}

// keyRows are one key's cached rows of each side, by time then put order.
type keyRows struct{ rows [2][]streamMatch }

// entry is key's entry (nil: none).
func (m *windowRows) entry(key []byte) *keyRows {
	if m.lastOK && string(key) == string(m.lastKey) {
		return m.last
	}
	kr := m.byKey[string(key)]
	m.remember(key, kr)
	return kr
}

// add makes the entry of key, which has none.
func (m *windowRows) add(key []byte) *keyRows {
	kr := &keyRows{}
	m.byKey[string(key)] = kr
	m.remember(key, kr)
	return kr
}

func (m *windowRows) remember(key []byte, kr *keyRows) {
	m.lastKey, m.last, m.lastOK = append(m.lastKey[:0], key...), kr, true
}

// remove deletes k's entry (both sides without rows).
func (m *windowRows) remove(k string) {
	delete(m.byKey, k)
	m.lastOK, m.last = false, nil
}

// newWindowCache caches rows for a window of before + after: span keeps
// twice that behind the horizon (lookups from the other side, which may
// be a little out of order).
func newWindowCache(before, after int64, budget int) *windowCache {
	w := max(before+after, 1000)
	return &windowCache{span: 2 * w, width: w, low: math.MinInt64, newest: math.MinInt64, peer: math.MaxInt64,
		m: &windowRows{byKey: map[string]*keyRows{}}, budget: budget}
}

// share makes o, the other side's cache, keep its rows in c's map: each
// key's entry then holds both sides' rows (windowRows).
func (c *windowCache) share(o *windowCache) {
	side := 1 - c.side
	for k, okr := range o.m.byKey {
		kr := c.m.byKey[k]
		if kr == nil {
			kr = &keyRows{}
			c.m.byKey[k] = kr
		}
		kr.rows[side] = okr.rows[o.side]
	}
	o.m, o.side = c.m, side
	c.m.lastOK, c.m.last = false, nil
}

// put caches a row the store has just kept (vals are copied).
func (c *windowCache) put(key []byte, vals []any, ts int64) {
	if ts < c.low {
		return
	}
	kr := c.m.entry(key)
	if kr == nil {
		kr = c.m.add(key)
	}
	n := rowBytes(len(key), vals)
	m := streamMatch{values: c.clone(vals), time: ts, size: int32(n)}
	rows := kr.rows[c.side]
	i := len(rows)
	for i > 0 && rows[i-1].time > ts {
		i-- // a late row goes after the rows of its time, before the later ones
	}
	kr.rows[c.side] = slices.Insert(rows, i, m)
	c.bytes += n
	c.newest = max(c.newest, ts)
	c.evict()
}

// clone copies vals into the arena (a new chunk when the current one is
// full), capacity cut to its length so that no append reaches the next
// row's values.
func (c *windowCache) clone(vals []any) []any {
	if len(vals) > cap(c.arena)-len(c.arena) {
		c.arena = make([]any, 0, max(arenaSlots, len(vals)))
	}
	i := len(c.arena)
	c.arena = append(c.arena, vals...)
	return c.arena[i:len(c.arena):len(c.arena)]
}

// follow tells the cache how far the other side's rows have come.
func (c *windowCache) follow(peer int64) { c.peer = peer }

// restart empties the cache for a store whose newest row is at newest
// and returns the time from which it must be filled (put) again.
func (c *windowCache) restart(newest int64) int64 {
	c.trimRows(func([]streamMatch) int { return -1 })
	c.bytes = 0
	c.newest = newest
	c.low = newest - c.span
	return c.low
}

// fetch returns key's rows with time in [from, to], by time then put
// order as the store returns them; ok is false when the cache may miss
// some (from is before low). The rows are the cache's own: callers read
// them before the next put.
func (c *windowCache) fetch(key []byte, from, to int64) (out []streamMatch, ok bool) {
	if from < c.low {
		return nil, false
	}
	kr := c.m.entry(key)
	if kr == nil {
		return nil, true
	}
	rows := kr.rows[c.side]
	i := 0
	for i < len(rows) && rows[i].time < from {
		i++
	}
	j := i
	for j < len(rows) && rows[j].time <= to {
		j++
	}
	return rows[i:j:j], true
}

// evict raises low to the width boundary span behind the horizon and,
// while the cache is over budget, on by a quarter of what it holds at a
// time (so that a trim, which visits every key, comes once per many
// puts), trimming every key's rows below it.
func (c *windowCache) evict() {
	h := min(c.newest, c.peer)
	if hold := c.newest - peerHold*c.span; c.newest > math.MinInt64+peerHold*c.span && h < hold {
		h = hold // an idle or far-behind other side holds back no more than this
	}
	if h > math.MinInt64+c.span {
		if cut := c.boundary(h - c.span); cut > c.low {
			c.trim(cut)
		}
	}
	for c.bytes > c.budget && c.low <= c.newest {
		base := c.low
		if base == math.MinInt64 {
			base = c.oldest()
		}
		c.trim(c.boundary(base+(c.newest-base)/4) + c.width)
	}
}

// oldest is the time of the oldest row cached (newest when none is).
func (c *windowCache) oldest() int64 {
	t := c.newest
	for _, kr := range c.m.byKey {
		if rows := kr.rows[c.side]; len(rows) > 0 {
			t = min(t, rows[0].time)
		}
	}
	return t
}

// trim drops the rows before low, and the keys left without rows.
func (c *windowCache) trim(low int64) {
	c.low = low
	c.trimRows(func(rows []streamMatch) int {
		i := 0
		for i < len(rows) && rows[i].time < low {
			c.bytes -= int(rows[i].size)
			i++
		}
		return i
	})
}

// trimRows drops the first cut(rows) of this side's rows of every key
// (-1: all of them), and the entries left without rows of either side.
func (c *windowCache) trimRows(cut func(rows []streamMatch) int) {
	for k, kr := range c.m.byKey {
		rows := kr.rows[c.side]
		if len(rows) == 0 {
			continue
		}
		if i := cut(rows); i >= 0 && i < len(rows) {
			// moved down, not resliced: the slice keeps its capacity for
			// the key's next rows, and the dropped rows' values are let go
			n := copy(rows, rows[i:])
			clear(rows[n:])
			kr.rows[c.side] = rows[:n]
			continue
		}
		kr.rows[c.side] = nil
		if len(kr.rows[1-c.side]) == 0 {
			c.m.remove(k)
		}
	}
}

// boundary is the start of the width-wide slot holding ts.
func (c *windowCache) boundary(ts int64) int64 {
	b := ts / c.width
	if ts < 0 && ts%c.width != 0 {
		b--
	}
	return b * c.width
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
