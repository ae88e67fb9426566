package recovery

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
)

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

// DB is the state DB as the loop sees it.
type DB interface {
	Failure() error // the write it refused, nil while it takes writes
	Reopen() error  // reopen it in place once the disk takes writes
}

// Recovery is the engine's loop that brings local state back after a
// write failure; a nil *Recovery (an engine without a data directory)
// records nothing.
type Recovery struct {
	dir     string
	db      DB
	logger  *slog.Logger
	restart func(ids []string)
	wake    chan struct{} // one pending wake-up at most
	stop    chan struct{}
	done    chan struct{} // closed when the loop ends; nil until it starts

	mu     sync.Mutex
	failed map[string]bool // queries in ERROR for the storage failure, to restart
}

// New returns the recovery of the state DB in dir; its loop starts with
// Start.
func New(dir string) *Recovery {
	return &Recovery{dir: dir, wake: make(chan struct{}, 1), stop: make(chan struct{}), failed: map[string]bool{}}
}

// Poke wakes the loop; it never blocks (the DB's failure hook calls it
// from Pebble's goroutines).
func (r *Recovery) Poke(error) {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Take returns the recorded queries, sorted, and forgets them.
func (r *Recovery) Take() []string {
	if r == nil {
		return nil
	}
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
func (r *Recovery) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.stop:
		return false
	}
}

// Start runs the loop until Stop: once woken, it probes, reopens db and
// hands the recorded queries to restart.
func (r *Recovery) Start(db DB, logger *slog.Logger, restart func(ids []string)) {
	if r == nil {
		return
	}
	r.db, r.logger, r.restart = db, logger, restart
	r.done = make(chan struct{})
	go r.run(r.done)
}

// Stop ends the loop and waits for it (a restart under way finishes
// first).
func (r *Recovery) Stop() {
	if r == nil {
		return
	}
	close(r.stop)
	if r.done != nil {
		<-r.done
	}
}

// Failed records that query id went to ERROR with err; a storage
// failure is the recovery's to undo.
func (r *Recovery) Failed(id string, err error) {
	if r == nil || !exec.IsStorageFault(err) {
		return
	}
	r.mu.Lock()
	r.failed[id] = true
	r.mu.Unlock()
	r.Poke(err)
}

func (r *Recovery) run(done chan struct{}) {
	defer close(done)
	for {
		select {
		case <-r.stop:
			return
		case <-r.wake:
		}
		r.recover()
	}
}

// recover waits for the DB to take writes again (reopening it) and
// restarts the queries that failed on it.
func (r *Recovery) recover() {
	wait := storageRetryInitial
	for attempt := 1; ; attempt++ {
		if !r.sleep(wait) {
			return
		}
		if err := r.reopen(attempt, wait); err != nil {
			wait = min(2*wait, storageRetryMax)
			continue
		}
		r.restart(r.Take())
		return
	}
}

// reopen probes the data directory and reopens the failed DB; nil when
// the DB takes writes (again). It logs the attempts at a low rate: the
// first ones (1, 2, 4, … s apart), then every tenth.
func (r *Recovery) reopen(attempt int, waited time.Duration) error {
	failure := r.db.Failure()
	if failure == nil {
		return nil
	}
	err := probeWrites(r.dir)
	if err == nil {
		err = r.db.Reopen()
	}
	if err != nil {
		log := r.logger.Debug
		if attempt <= 6 || attempt%10 == 0 {
			log = r.logger.Warn
		}
		log("local state still takes no writes; probing the data directory again", "attempt", attempt,
			"next_in", min(2*waited, storageRetryMax), "dir", r.dir, "err", err)
		return err
	}
	r.logger.Info("local state takes writes again: reopened after the write failure", "attempts", attempt,
		"dir", r.dir, "failure", failure)
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
