package physical

// rowCacheSize bounds the rows a side store's rowCache keeps decoded:
// 16384 per store partition (a few MiB for rows of a handful of columns),
// past which a random entry makes room for each new one.
const rowCacheSize = 16384

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
	rows map[string]*sideRow // nil value: no row under the key
	max  int
}

func newRowCache(max int) *rowCache {
	return &rowCache{rows: make(map[string]*sideRow), max: max}
}

// get returns the cached row under key (nil: none) and whether the key
// is cached at all.
func (c *rowCache) get(key []byte) (*sideRow, bool) {
	if c == nil {
		return nil, false
	}
	r, ok := c.rows[string(key)]
	return r, ok
}

// put caches what a store read found under key, unless it failed.
func (c *rowCache) put(key []byte, r *sideRow, err error) {
	if c == nil || err != nil {
		return
	}
	if len(c.rows) >= c.max {
		for k := range c.rows { // map order is random: a random eviction
			delete(c.rows, k)
			break
		}
	}
	c.rows[string(key)] = r
}

// forget drops key, about to be written.
func (c *rowCache) forget(key []byte) {
	if c != nil {
		delete(c.rows, string(key))
	}
}
