package exec

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/physical"
)

// StreamTimes holds the stream time and open window count of each task of
// a query (windowed operators publish into them).
type StreamTimes struct {
	mu    sync.Mutex
	tasks map[physical.TaskID]*atomic.Int64
	open  map[physical.TaskID]*atomic.Int64
}

// OpenFor returns the open-windows cell of a task.
func (s *StreamTimes) OpenFor(id physical.TaskID) *atomic.Int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open == nil {
		s.open = map[physical.TaskID]*atomic.Int64{}
	}
	c, ok := s.open[id]
	if !ok {
		c = &atomic.Int64{}
		s.open[id] = c
	}
	return c
}

// OpenSnapshot returns the tasks' open window counts, by task id.
func (s *StreamTimes) OpenSnapshot() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int64{}
	for id, c := range s.open {
		out[id.String()] = c.Load()
	}
	return out
}

// ForTask returns the stream-time cell of a task.
func (s *StreamTimes) ForTask(id physical.TaskID) *atomic.Int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tasks == nil {
		s.tasks = map[physical.TaskID]*atomic.Int64{}
	}
	c, ok := s.tasks[id]
	if !ok {
		c = &atomic.Int64{}
		c.Store(-1)
		s.tasks[id] = c
	}
	return c
}

// Snapshot returns the tasks' stream times, by task id.
func (s *StreamTimes) Snapshot() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int64{}
	for id, c := range s.tasks {
		if v := c.Load(); v >= 0 {
			out[id.String()] = v
		}
	}
	return out
}

// Latencies keeps the count, total and maximum of a duration (the time
// transactions take to end, or at_least_once commits take, for the
// query's metrics).
type Latencies struct {
	mu         sync.Mutex
	n          int64
	total, max time.Duration
}

// Observe adds one duration.
func (l *Latencies) Observe(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	l.total += d
	l.max = max(l.max, d)
}

// Snapshot returns the count, mean and maximum.
func (l *Latencies) Snapshot() (n int64, mean, maxD time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n > 0 {
		mean = l.total / time.Duration(l.n)
	}
	return l.n, mean, l.max
}
