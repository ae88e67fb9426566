package global

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/sqlstream/sqlstream/state"
)

// Figures are what a query's global stores have done, for /metrics and
// GET /tasks (the console's "Sub-topology N for global store" section):
// the records each store loaded from its topic, and per partition how
// far the store's follower is behind the topic's end (the next offset it
// loads against the last stable offset of its last fetch). They live as
// long as the query, across its runs: a store reopened by a restart of
// the query's runner counts on.
type Figures struct {
	mu     sync.Mutex
	stores map[string]*storeFigures
}

type storeFigures struct {
	topic  string
	loaded atomic.Int64
	mu     sync.Mutex
	parts  map[int32]PartitionProgress
	store  *Store // the open store (nil before the first open)
}

// NewFigures returns the figures of a query's global stores, none yet.
func NewFigures() *Figures { return &Figures{stores: map[string]*storeFigures{}} }

// of returns the figures of store name over topic, added when new; nil
// for nil Figures.
func (f *Figures) of(name, topic string) *storeFigures {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	sf := f.stores[name]
	if sf == nil {
		sf = &storeFigures{topic: topic, parts: map[int32]PartitionProgress{}}
		f.stores[name] = sf
	}
	return sf
}

// PartitionProgress is where a global store's follower stands in one
// partition of its topic; -1 is unknown.
type PartitionProgress struct {
	Partition int32
	Position  int64 // the next offset the store loads
	End       int64 // the partition's end as the last fetch told it
	Lag       int64 // max(End − Position, 0); -1 while either is unknown
}

// StoreFigures are one global store's figures.
type StoreFigures struct {
	Store, Topic string
	Loaded       int64 // records loaded from the topic by this query here
	Rows, Bytes  int64 // rows held (the checkpoint's entries not counted) and approximate bytes
	Partitions   []PartitionProgress
}

// Lag sums the known partition lags (-1: none known yet).
func (s StoreFigures) Lag() int64 {
	sum, known := int64(0), false
	for _, p := range s.Partitions {
		if p.Lag >= 0 {
			sum, known = sum+p.Lag, true
		}
	}
	if !known {
		return -1
	}
	return sum
}

// Snapshot returns every store's figures, by name, with its size in db
// under application id app.
func (f *Figures) Snapshot(db *state.DB, app string) []StoreFigures {
	if f == nil {
		return nil
	}
	f.mu.Lock()
	names := make([]string, 0, len(f.stores))
	for n := range f.stores {
		names = append(names, n)
	}
	f.mu.Unlock()
	slices.Sort(names)
	out := make([]StoreFigures, 0, len(names))
	for _, n := range names {
		out = append(out, f.of(n, "").snapshot(n, db, app))
	}
	return out
}

func (sf *storeFigures) snapshot(name string, db *state.DB, app string) StoreFigures {
	sf.mu.Lock()
	s := StoreFigures{Store: name, Topic: sf.topic, Loaded: sf.loaded.Load()}
	for _, p := range sf.parts {
		s.Partitions = append(s.Partitions, p)
	}
	open := sf.store
	sf.mu.Unlock()
	slices.SortFunc(s.Partitions, func(a, b PartitionProgress) int { return int(a.Partition - b.Partition) })
	if db == nil {
		return s
	}
	bytes, keys, err := db.ApproxSize(state.StoreID{App: app, Name: name})
	if err != nil {
		return s
	}
	s.Rows, s.Bytes = keys, bytes
	if open != nil {
		if ck, err := open.Checkpoint(); err == nil {
			s.Rows = max(keys-int64(len(ck)), 0)
		}
	}
	return s
}

// opened notes the store now open (nil Figures: nothing).
func (sf *storeFigures) opened(s *Store) {
	if sf == nil {
		return
	}
	sf.mu.Lock()
	sf.store = s
	sf.mu.Unlock()
}

// progress records a partition's position and end.
func (sf *storeFigures) progress(partition int32, position, end int64) {
	if sf == nil {
		return
	}
	lag := int64(-1)
	if position >= 0 && end >= 0 {
		lag = max(end-position, 0)
	}
	sf.mu.Lock()
	sf.parts[partition] = PartitionProgress{Partition: partition, Position: position, End: end, Lag: lag}
	sf.mu.Unlock()
}
