package state

// Store is a byte-level key-value store for one store partition. A Store is
// owned by one task goroutine and is not safe for concurrent use.
//
// Keys and values passed in may be reused by the caller after the call
// returns. Values returned by Get are the caller's. Keys and values passed
// to a Range callback are valid only during that call, and the callback must
// not call the Store (nor DB.Checkpoint of its id).
type Store interface {
	// Get returns the value of key, or nil, nil when absent. It sees the
	// store's own unflushed writes.
	Get(key []byte) ([]byte, error)
	// Put sets key to value; a nil value deletes key.
	Put(key, value []byte) error
	// Range calls fn for every key in [start, end) in key order (nil start
	// or end is unbounded) until fn returns false. It sees the store's own
	// unflushed writes.
	Range(start, end []byte, fn func(k, v []byte) bool) error
	// Flush is the commit point: cached writes go down (one changelog
	// record per key) and everything not yet durable is committed in one
	// Pebble batch together with any staged checkpoint.
	Flush() error
	// Close releases the store. Unflushed writes are discarded, as after a
	// crash; Flush first to keep them.
	Close() error
}

// FlushListener observes an entry the cache writes down: the key, the new
// value (nil for a delete) and the value it replaces (nil when absent). The
// slices are valid only during the call.
type FlushListener func(key, value, old []byte)

// purger is implemented by every layer: it removes the entries whose key
// matches from the local store only: no changelog record, no listener call.
// match reads key during the call only and never writes it (the caching
// layer shows it the cache's own key). windowsBefore > 0 says match
// matches exactly the WindowKeys of windows starting before it, so a
// segmented partition visits only the segments that can hold them; 0
// when match is anything else (sessions).
type purger interface {
	purge(match func(key []byte) bool, windowsBefore int64) error
}

// Store opens the store partition id, stacked Kafka Streams style:
//
//	metered → caching → changelogging → pebble
//
// A layer is left out when disabled (WithCache(0), no WithChangelog).
// Only one Store (or Restorer) may own a partition at a time.
func (d *DB) Store(id StoreID, opts ...StoreOption) (Store, error) {
	s, _, err := d.openStack(id, opts)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (d *DB) openStack(id StoreID, opts []StoreOption) (*meteredStore, storeConfig, error) {
	cfg := defaultStoreConfig()
	for _, o := range opts {
		o.applyStore(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, cfg, err
	}
	ps, err := d.claim(id)
	if err != nil {
		return nil, cfg, err
	}
	return stack(ps, cfg), cfg, nil
}

// stack builds the wrappers over the Pebble layer.
func stack(ps *pebbleStore, cfg storeConfig) *meteredStore {
	ps.txn = cfg.transactional
	var s Store = ps
	if cfg.changelog != nil {
		s = newChangeloggingStore(s, cfg.changelog, cfg.timestamped)
	}
	s = newCachingStore(s, cfg.cacheBytes, cfg.listener)
	m := cfg.metrics
	if m == nil {
		m = &Metrics{}
	}
	return newMeteredStore(s, m)
}
