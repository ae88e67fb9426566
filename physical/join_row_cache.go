package physical

// rowCacheBytes bounds the memory a side store's rowCache holds, per
// store partition: 8 MiB as rowCost counts it (about 30,000 rows of a
// handful of columns), past which random entries make room for each new
// one.
const rowCacheBytes = 8 << 20

// rowCost estimates the memory of a cached row from its key and stored
// value: the key as the map's string, the value's text (which its decoded
// strings share) and about as much again for the decoded values and
// their boxes, and the map entry and row headers.
func rowCost(key, stored []byte) int { return len(key) + 2*len(stored) + 96 }

// rowCache keeps the decoded rows of a join's table side by store key,
// and which keys have no row, so a stream row whose key was looked up
// before costs neither the store's Get nor the decode of the table row
// (Kafka Streams decodes on every lookup; a hand-written join keeps its
// table decoded in a map, which this approaches for the keys in use).
//
// The first lookup of an unwindowed table warms the cache: one scan of
// the store fills it up to its bound (sideStore.warm), far cheaper than
// a Get per key (each a Pebble seek through every level) after a
// restart. When the whole store fitted, the cache is complete: a key it
// does not hold has no row, and a lookup of it reads nothing. A write
// keeps it complete (the written key is marked unknown, read again by
// its next lookup); an eviction ends it.
//
// It is exact only when every write of the store goes through the
// sideStore that owns the cache (update forgets the key), which holds for
// the stream–table and table–table joins of one task: their stores are
// written by their own table sides, on the task's goroutine, and are
// restored before the task runs. A global table's store is written by
// its loader on another goroutine: its tasks' caches hold only while the
// store tells them the keys it wrote (GlobalWrites), which each lookup
// forgets first (globalJoin.catchUp). A store written elsewhere
// otherwise (a foreign-key join's subscription) keeps no cache. The
// rows are shared with the callers, who never write them.
type rowCache struct {
	rows  map[string]cachedRow
	bytes int // the rowCost of the rows held
	max   int // bound on bytes
	// warmed: the store was scanned (or cannot be, being windowed);
	// complete: the cache knows every key of the store (see above).
	warmed, complete bool
}

// cachedRow is a decoded row (nil: no row under the key) and its rowCost;
// unknown marks a key written since the cache was complete, whose row the
// next lookup reads.
type cachedRow struct {
	row     *sideRow
	cost    int
	unknown bool
}

func newRowCache(maxBytes int) *rowCache {
	return &rowCache{rows: make(map[string]cachedRow), max: maxBytes}
}

// get returns the cached row under key (nil: none) and whether the cache
// knows the key's row at all.
func (c *rowCache) get(key []byte) (*sideRow, bool) {
	if c == nil {
		return nil, false
	}
	r, ok := c.rows[string(key)]
	if !ok {
		return nil, c.complete
	}
	return r.row, !r.unknown
}

// put caches what a store read found under key (stored: its bytes),
// unless it failed.
func (c *rowCache) put(key, stored []byte, r *sideRow, err error) {
	if c == nil || err != nil {
		return
	}
	c.set(key, cachedRow{row: r, cost: rowCost(key, stored)})
}

// fits reports whether a row of this cost fits without an eviction.
func (c *rowCache) fits(cost int) bool { return c.bytes+cost <= c.max }

// set puts e under key, evicting random entries first while it would not
// fit (an eviction ends completeness).
func (c *rowCache) set(key []byte, e cachedRow) {
	if old, ok := c.rows[string(key)]; ok {
		delete(c.rows, string(key))
		c.bytes -= old.cost
	}
	for k, old := range c.rows { // map order is random: random evictions
		if c.fits(e.cost) {
			break
		}
		delete(c.rows, k)
		c.bytes -= old.cost
		c.complete = false
	}
	c.rows[string(key)] = e
	c.bytes += e.cost
}

// forget drops key, about to be written; a complete cache keeps it as
// unknown instead, so that it stays complete.
func (c *rowCache) forget(key []byte) {
	if c == nil {
		return
	}
	if c.complete {
		c.set(key, cachedRow{cost: rowCost(key, nil), unknown: true})
		return
	}
	if e, ok := c.rows[string(key)]; ok {
		delete(c.rows, string(key))
		c.bytes -= e.cost
	}
}
