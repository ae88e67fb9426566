package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// StorageFailure is the write the disk of the server's data directory
// refused (a full disk: state.WriteError), nil while local state takes
// writes. From that write on the state DB fails every write, so every
// query with state goes to ERROR with it (error_class.go, fatal storage);
// the health check reports it (health.go), and shutdown closes the failed
// DB within a bound (state.DB.Close).
//
// The engine recovers by itself (storageRecovery): told of the failure by
// the DB's failure hook, it probes the data directory with a real write
// and fsync at a backoff from storageRetryInitial to storageRetryMax;
// once the probe passes it reopens the DB in place (state.DB.Reopen:
// readers wait for it, none sees it closed) and restarts each query that
// went to ERROR for the storage failure, and only those: each restores
// what its local state lacks from its changelogs and consumes on from its
// committed offsets, as after a crash. A query whose store was lost with
// the reopen (state: writes not durable) fails with a storage error
// after it, and is restarted the same way.
//
//	write refused ─► DB failed ─► hook ─► wake
//	                  queries with state ─► ERROR (fatal storage) ─► recorded
//	wake ─► wait (1 s … 30 s) ─► probe write+fsync ─► Reopen ─► restart recorded queries
//	            ▲                      │ fails
//	            └──────────────────────┘
func (e *Engine) StorageFailure() error {
	if e.db == nil {
		return nil
	}
	return e.db.Failure()
}

// Stated defaults of the recovery's backoff; the first probe comes
// storageRetryInitial after the failure, each next one twice as late, at
// most storageRetryMax.
const (
	storageRetryInitial = time.Second
	storageRetryMax     = 30 * time.Second
	// storageProbeBytes is what the probe writes and syncs: enough that a
	// disk with room for it can take Pebble's reopen (a MANIFEST, a WAL).
	storageProbeBytes = 1 << 20
	// storageProbeName is the probe file in the data directory (Pebble
	// ignores files it does not know).
	storageProbeName = ".sqlstream-write-probe"
)

// storageRecovery is the engine's loop that brings local state back after
// a write failure; nil on an engine without a data directory.
type storageRecovery struct {
	dir  string
	wake chan struct{} // one pending wake-up at most
	stop chan struct{}
	done chan struct{} // closed when the loop ends; nil until it starts

	mu     sync.Mutex
	failed map[string]bool // queries in ERROR for the storage failure, to restart
}

func newStorageRecovery(dir string) *storageRecovery {
	return &storageRecovery{dir: dir, wake: make(chan struct{}, 1), stop: make(chan struct{}), failed: map[string]bool{}}
}

// poke wakes the loop; it never blocks (the DB's failure hook calls it
// from Pebble's goroutines).
func (r *storageRecovery) poke(error) {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// take returns the recorded queries, sorted, and forgets them.
func (r *storageRecovery) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.failed))
	for id := range r.failed {
		ids = append(ids, id)
	}
	clear(r.failed)
	slices.Sort(ids)
	return ids
}

// sleep waits d; false when the engine stops meanwhile.
func (r *storageRecovery) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.stop:
		return false
	}
}

// startStorageRecovery runs the recovery loop until Close.
func (e *Engine) startStorageRecovery() {
	if r := e.recovery; r != nil {
		r.done = make(chan struct{})
		go e.runStorageRecovery(r.done)
	}
}

// stopStorageRecovery ends the loop and waits for it (a restart under
// way finishes first).
func (e *Engine) stopStorageRecovery() {
	if r := e.recovery; r != nil {
		close(r.stop)
		if r.done != nil {
			<-r.done
		}
	}
}

// storageFailed records that query q went to ERROR with err; a storage
// failure is the recovery's to undo.
func (e *Engine) storageFailed(q *query, err error) {
	r := e.recovery
	if r == nil || classify(err) != classFatalStorage {
		return
	}
	r.mu.Lock()
	r.failed[q.id] = true
	r.mu.Unlock()
	r.poke(err)
}

func (e *Engine) runStorageRecovery(done chan struct{}) {
	r := e.recovery
	defer close(done)
	for {
		select {
		case <-r.stop:
			return
		case <-r.wake:
		}
		e.recoverStorage()
	}
}

// recoverStorage waits for the DB to take writes again (reopening it)
// and restarts the queries that failed on it.
func (e *Engine) recoverStorage() {
	r := e.recovery
	wait := storageRetryInitial
	for attempt := 1; ; attempt++ {
		if !r.sleep(wait) {
			return
		}
		if err := e.reopenStorage(attempt, wait); err != nil {
			wait = min(2*wait, storageRetryMax)
			continue
		}
		e.restartStorageFailed()
		return
	}
}

// reopenStorage probes the data directory and reopens the failed DB;
// nil when the DB takes writes (again). It logs the attempts at a low
// rate: the first ones (1, 2, 4, … s apart), then every tenth.
func (e *Engine) reopenStorage(attempt int, waited time.Duration) error {
	failure := e.db.Failure()
	if failure == nil {
		return nil
	}
	err := probeWrites(e.recovery.dir)
	if err == nil {
		err = e.db.Reopen()
	}
	if err != nil {
		log := e.logger.Debug
		if attempt <= 6 || attempt%10 == 0 {
			log = e.logger.Warn
		}
		log("local state still takes no writes; probing the data directory again", "attempt", attempt,
			"next_in", min(2*waited, storageRetryMax), "dir", e.recovery.dir, "err", err)
		return err
	}
	e.logger.Info("local state takes writes again: reopened after the write failure", "attempts", attempt,
		"dir", e.recovery.dir, "failure", failure)
	return nil
}

// probeWrites writes storageProbeBytes into the probe file of dir, syncs
// and removes it: whether the disk takes writes, not a free-space guess.
func probeWrites(dir string) error {
	p := filepath.Join(dir, storageProbeName)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	_, err = f.Write(make([]byte, storageProbeBytes))
	if err == nil {
		err = f.Sync()
	}
	err = errors.Join(err, f.Close(), os.Remove(p))
	if err != nil {
		return fmt.Errorf("probe write of %d bytes into %s: %w", storageProbeBytes, dir, err)
	}
	return nil
}

// restartStorageFailed restarts each recorded query still in ERROR: its
// runner stops (its tasks' stores close) and starts again, restoring.
func (e *Engine) restartStorageFailed() {
	for _, id := range e.recovery.take() {
		e.mu.Lock()
		q := e.queries[id]
		e.mu.Unlock()
		if q == nil || q.State() != StateError {
			continue
		}
		if !e.runStops([]stopJob{{id: id, stop: q.stop}}) {
			e.logger.Error("a query that failed on local state did not stop in time; it stays in ERROR", "query", id)
			continue
		}
		e.mu.Lock()
		if e.queries[id] == q && q.State() == StateError {
			if err := q.start(); err != nil {
				e.logger.Error("restarting a query that failed on local state", "query", id, "err", err)
			} else {
				e.logger.Info("restarted a query that failed on local state; it restores from its changelogs", "query", id)
			}
		}
		e.mu.Unlock()
	}
}
