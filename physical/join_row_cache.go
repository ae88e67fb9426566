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
// It is exact only when every write of the store goes through the
// sideStore that owns the cache (update forgets the key), which holds for
// the stream–table and table–table joins of one task: their stores are
// written by their own table sides, on the task's goroutine, and are
// restored before the task runs. A store written elsewhere (a global
// table's loader, a foreign-key join's subscription) keeps no cache. The
// rows are shared with the callers, who copy them (withTime) and never
// write them.
type rowCache struct {
	rows  map[string]cachedRow
	bytes int // the rowCost of the rows held
	max   int // bound on bytes
}

// cachedRow is a decoded row (nil: no row under the key) and its rowCost.
type cachedRow struct {
	row  *sideRow
	cost int
}

func newRowCache(maxBytes int) *rowCache {
	return &rowCache{rows: make(map[string]cachedRow), max: maxBytes}
}

// get returns the cached row under key (nil: none) and whether the key
// is cached at all.
func (c *rowCache) get(key []byte) (*sideRow, bool) {
	if c == nil {
		return nil, false
	}
	r, ok := c.rows[string(key)]
	return r.row, ok
}

// put caches what a store read found under key (stored: its bytes),
// unless it failed.
func (c *rowCache) put(key, stored []byte, r *sideRow, err error) {
	if c == nil || err != nil {
		return
	}
	cost := rowCost(key, stored)
	for k, e := range c.rows { // map order is random: random evictions
		if c.bytes+cost <= c.max {
			break
		}
		delete(c.rows, k)
		c.bytes -= e.cost
	}
	c.rows[string(key)] = cachedRow{row: r, cost: cost}
	c.bytes += cost
}

// forget drops key, about to be written.
func (c *rowCache) forget(key []byte) {
	if c == nil {
		return
	}
	if e, ok := c.rows[string(key)]; ok {
		delete(c.rows, string(key))
		c.bytes -= e.cost
	}
}
