package physical

import (

	"github.com/sqlstream/sqlstream/sql/types"
)

// outputCache holds an unwindowed aggregation's latest update per group
// between two flushes of the task's stores, as Kafka Streams' record
// cache does for a KTable: the aggregate forwards downstream (HAVING,
// projection, sink) only what its cache flushes, at the commit or once
// the cache is full. A hot group updated 500 times between two commits
// is projected, encoded and produced once, with its latest value and, as
// the old one, the value last forwarded (what a table's HAVING needs to
// tell a group it hides from one it never showed). ksqlDB users see
// this behaviour and set ksql.streams.cache.max.bytes.buffering to 0 to
// see every update; with 0 no cache is made (TaskEnv.CacheOutputs) and
// every update goes on at once.
//
// Only an unwindowed aggregation's updates are cached: a stream's
// outputs, repartition records (a re-group's retraction and addition
// must both arrive) and windowed aggregations (resolved issue 5: EMIT
// CHANGES emits each update of a window, EMIT FINAL one result per
// window; Kafka Streams would collapse these too, a recorded deviation)
// never come here.
//
// The runtime flushes it (Task.FlushOutputs) at each release of a task's
// held outputs under at_least_once and before each commit under
// exactly_once_v2, and drops it with the task after an aborted
// transaction or a failure (the inputs are processed again).
//
// The cache sits at the aggregate, not at the held output records, so a
// collapsed update costs a map lookup and a copy of its values: no
// filter, projection, encode or produce. It is flushed (Task.FlushOutputs)
// before the stores write their caches down to the changelog and the
// held outputs are produced, so the changelog records still precede the
// outputs they explain (resolved issue 16, point 6).
type outputCache struct {
	env   *TaskEnv
	next  Processor
	byKey map[string]*cachedUpdate
	// order has a slot per update, in the order they came; a key's
	// earlier slots are stale (their seq is not the entry's), skipped by
	// the flush and dropped by compact. Appending beats sorting the
	// entries at each flush: most keys of a windowed count are updated
	// once per flush.
	order []orderSlot
	seq   uint64
	bytes int64
	// reuse: next borrows values (valuesBorrower), so a flushed entry's
	// slices may be refilled; free are such entries.
	reuse bool
	free  []*cachedUpdate
}

// orderSlot is an update's place in the flush order.
type orderSlot struct {
	e   *cachedUpdate
	seq uint64
}

// cachedUpdate is a group's latest update and the record context it was
// made in (Kafka Streams forwards a cache entry with its record's
// context: headers travel, and log entries name the record).
type cachedUpdate struct {
	row    types.Row
	window types.Window
	oldBuf []any    // row.Old's storage (row.Old is nil when the update had none)
	in     InRecord // topic, partition, offset and headers of the last update's input
	hasIn  bool
	seq    uint64 // of the last update: the flush goes in that order, as Kafka Streams' dirty keys
	size   int64
}

// cachedUpdateOverhead is an entry's bytes besides its key and values,
// for the cache's bound: the entry, its map slot, its row's slices.
const cachedUpdateOverhead = 256

func newOutputCache(env *TaskEnv, next Processor) *outputCache {
	c := &outputCache{env: env, next: next, byKey: map[string]*cachedUpdate{}, reuse: borrowsValues(next)}
	env.caches = append(env.caches, c)
	return c
}

// borrowsValues: the cache copies the values it keeps.
func (c *outputCache) borrowsValues() bool { return true }

// put keeps row as key's latest update: its values, time, window and
// tombstone are the latest, its old value the one before the first
// update since the last flush (the value last forwarded).
func (c *outputCache) put(key []byte, row *types.Row) {
	e := c.byKey[string(key)]
	if e == nil {
		e = c.entry()
		if row.Old != nil {
			e.oldBuf = append(e.oldBuf[:0], row.Old...)
			e.row.Old = e.oldBuf
		}
		e.row.HasOld = row.HasOld
		c.byKey[string(key)] = e
	} else {
		c.bytes -= e.size
	}
	old, hasOld, vals := e.row.Old, e.row.HasOld, append(e.row.Values[:0], row.Values...)
	e.row = *row
	e.row.Values, e.row.Old, e.row.HasOld = vals, old, hasOld
	if row.Window != nil {
		e.window = *row.Window
		e.row.Window = &e.window
	}
	e.hasIn = c.env.current != nil
	if cur := c.env.current; cur != nil {
		// The headers are copied, and refilled only until the entry is
		// flushed: a sink's record may keep the flushed copy (sinkOp takes
		// the input's user headers as they are), and a flushed entry
		// starts again with none. A hot group's updates between two
		// flushes so copy theirs into one slice (q15: one group, an
		// origin header on every record).
		var hs []Header
		if cur.Headers != nil {
			hs = append(e.in.Headers[:0], cur.Headers...)
		}
		e.in = InRecord{Topic: cur.Topic, Partition: cur.Partition, Offset: cur.Offset, Timestamp: cur.Timestamp,
			Headers: hs}
	}
	c.seq++
	e.seq = c.seq
	c.order = append(c.order, orderSlot{e: e, seq: c.seq})
	if len(c.order) > 2*len(c.byKey)+64 {
		c.compact()
	}
	e.size = int64(len(key)+cachedUpdateOverhead) + 16*int64(len(vals)+len(old))
	c.bytes += e.size
}

// entry returns an empty entry: a flushed one when their slices may be
// refilled, else a new one.
func (c *outputCache) entry() *cachedUpdate {
	if n := len(c.free); n > 0 {
		e := c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
		return e
	}
	return &cachedUpdate{}
}

// compact drops the stale slots of order (a hot key's earlier updates),
// keeping the live ones in their order.
func (c *outputCache) compact() {
	live := c.order[:0]
	for _, s := range c.order {
		if s.e.seq == s.seq {
			live = append(live, s)
		}
	}
	clear(c.order[len(live):])
	c.order = live
}

// flush forwards every cached update, in the order of their last
// updates, and empties the cache.
func (c *outputCache) flush() error {
	if len(c.byKey) == 0 {
		return nil
	}
	order := c.order
	clear(c.byKey)
	c.order, c.bytes = nil, 0
	saved := c.env.current
	defer func() {
		c.env.current = saved
		for _, s := range order {
			if c.reuse && s.e.seq == s.seq {
				e := s.e
				e.row, e.in, e.hasIn = types.Row{Values: e.row.Values[:0]}, InRecord{}, false
				c.free = append(c.free, e)
			}
		}
		clear(order)
		c.order = order[:0]
	}()
	for _, s := range order {
		if s.e.seq != s.seq {
			continue // the key was updated again later
		}
		c.env.current = nil
		if s.e.hasIn {
			c.env.current = &s.e.in
		}
		if err := c.next.Process(&s.e.row); err != nil {
			return err
		}
	}
	return nil
}

// FlushOutputs forwards the table updates the task's operators cache
// (outputCache) downstream: the runtime calls it before the task's
// stores write their caches down, at the commit or once
// CachedOutputBytes reaches the cache's bound.
//
// A panic in an operator is recovered and returned as a *PanicError, as
// Process does.
func (t *Task) FlushOutputs() (err error) {
	defer func() {
		if p := recover(); p != nil {
			r := t.env.current
			if r == nil {
				r = &InRecord{}
			}
			err = newPanicError(p, r)
		}
	}()
	for _, c := range t.env.caches {
		if err := c.flush(); err != nil {
			return err
		}
	}
	return nil
}

// CachedOutputBytes estimates the bytes of the updates the task's
// operators cache (for the cache's bound, ksql.streams.cache.max.bytes.buffering).
func (t *Task) CachedOutputBytes() int64 {
	n := int64(0)
	for _, c := range t.env.caches {
		n += c.bytes
	}
	return n
}
