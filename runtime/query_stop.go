package runtime

import (
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
)

// Stopping a query waits for its tasks to finish what they are doing, and a
// task can take long (a huge window, a slow broker, a stuck processor).
// That wait never happens under the engine lock: a statement that ends
// queries (TERMINATE, DROP, a TERMINATE of a transient query) takes them
// out of the catalog and marks them TERMINATED under the lock, queues
// their shutdown with deferStop, and unlock runs the queue once the lock
// is released, waiting at most ksql.streams.shutdown.timeout.ms:
//
//	e.mu held:  remove from e.queries ─► state TERMINATED ─► deferStop
//	e.mu free:  unlock ─► stop runners (bounded wait) ─► drop internal topics, stores
//
// A shutdown that overruns the bound is logged and keeps going in the
// background; the statement answers anyway.

// stopJob is the shutdown of one query.
type stopJob struct {
	id   string
	stop func() error
}

// deferStop queues the shutdown of query id until the engine lock is
// released. e.mu is held.
func (e *Engine) deferStop(id string, stop func() error) {
	e.stops = append(e.stops, stopJob{id: id, stop: stop})
}

// unlock releases e.mu, then runs the shutdowns queued under it. Every
// holder of e.mu that may end queries releases it with unlock.
func (e *Engine) unlock() {
	jobs := e.stops
	e.stops = nil
	e.mu.Unlock()
	e.runStops(jobs)
}

// runStops runs jobs concurrently and waits for them at most the shutdown
// timeout; it reports whether they all finished.
func (e *Engine) runStops(jobs []stopJob) bool {
	if len(jobs) == 0 {
		return true
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := j.stop(); err != nil {
				e.logger.Warn("query stopped with an error", "query", j.id, "err", err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	timeout := e.cfg.ShutdownTimeout
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		e.logger.Warn("queries did not stop in time; they keep stopping in the background",
			"queries", len(jobs), "timeout", timeout)
		return false
	}
}

// retire takes q out of service under the engine lock: it becomes
// TERMINATED and its runner, internal topics and stores are released once
// the lock is free. e.mu is held.
func (e *Engine) retire(q *query) {
	delete(e.queries, q.id)
	q.mu.Lock()
	r := q.runner
	q.runner = nil
	q.mu.Unlock()
	q.setState(StateTerminated, nil)
	e.deferStop(q.id, func() error { return q.release(r) })
}

// release stops r, then removes the query's internal topics and local
// state (its global tables' stores included).
func (q *query) release(r exec.Runner) error {
	var err error
	if r != nil {
		err = r.Stop()
	}
	if len(q.topo.Internal) > 0 {
		q.eng.deleteInternalTopics(q.topo)
	}
	if len(q.topo.Internal) > 0 || len(q.topo.Globals) > 0 {
		q.eng.wipeStores(q.appID) // global stores and their checkpoints too
	}
	return err
}
