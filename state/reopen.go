package state

import (
	"errors"
	"fmt"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// # Reopening in place
//
// A DB that failed a write (write_failure.go) takes writes again once it
// is reopened: Reopen closes the broken Pebble DB and opens the directory
// again behind the same *DB, so the stores, readers and the runtime that
// hold it never see it closed. Every use of Pebble holds pmu shared for
// its duration (use, pebbleStore.enter); Reopen takes it exclusively, by
// TryLock (polled, within reopenDrainWithin), so a reader that takes it
// twice (a Range whose callback reads) never deadlocks against a waiting
// Reopen: Reopen gives up instead, and is retried. While it holds pmu,
// readers wait for the new DB rather than failing.
//
// What Pebble holds after the reopen is what its WAL made durable; a
// store open across it may have believed more. Each successful write gets
// a sequence number (after it returns; a synced write notes the number
// from before it started as durable: every write that had returned by
// then is ahead of it in the WAL). A store remembers the generation and
// number of its last write; at its first call after a reopen it is lost
// (every call fails with a *WriteError, its owner restores it from the
// changelog) if it has an uncommitted batch, or if its last write was not
// durable when its generation closed. A store that wrote nothing since its
// last durable write goes on as if nothing happened.

// reopenDrainWithin bounds how long Reopen waits for the uses of the
// broken Pebble DB in progress to end.
const reopenDrainWithin = 10 * time.Second

// errAbandoned is why a DB cannot be reopened in this process: closing
// the failed Pebble DB timed out, and it keeps the directory locked.
var errAbandoned = errors.New("state: reopen: the failed Pebble DB could not be closed (its goroutines are stuck), so it keeps the data directory locked; restart the server to reopen local state")

// NeedsRestart reports whether err (a DB's Failure) can only be undone by
// a restart of the process: the failed Pebble DB could not be closed.
func NeedsRestart(err error) bool { return errors.Is(err, errAbandoned) }

// IsLostWithReopen reports whether err is a store's (or restorer's) that a
// reopen of the DB lost (its writes were not durable when the DB was
// reopened): its owner closes it and opens it again from its checkpoint.
func IsLostWithReopen(err error) bool { return errors.Is(err, errLostWithReopen) }

// errLostWithReopen is why a store open across a reopen fails.
var errLostWithReopen = errors.New("writes of this store were not durable when local state was reopened after a write failure; close the store and restore it from its changelog")

// use returns the Pebble DB for one use, held until done is called; an
// error when a reopen left none (its *WriteError).
func (d *DB) use() (pdb *pebble.DB, done func(), err error) {
	d.pmu.RLock()
	if d.pdb == nil {
		d.pmu.RUnlock()
		if err := d.Failure(); err != nil {
			return nil, nil, err
		}
		return nil, nil, errClosed
	}
	return d.pdb, d.runlock, nil
}

// generation is the number of reopens so far; pmu is held.
func (d *DB) generation() int { return len(d.genDurable) }

// wrote records a successful write that started after write number
// before: synced, it makes every write up to before durable. It returns
// the write's number.
func (d *DB) wrote(before uint64, synced bool) uint64 {
	n := d.writes.Add(1)
	if synced {
		for {
			cur := d.durable.Load()
			if cur >= before || d.durable.CompareAndSwap(cur, before) {
				break
			}
		}
	}
	return n
}

// Reopen closes the Pebble DB and opens its directory again in place,
// clearing the write failure: stores open across it go on if nothing
// they wrote was lost, else fail (see above). Call it once the disk takes
// writes again; on a DB that has not failed it does nothing. On an error
// the DB stays failed and Reopen may be called again.
func (d *DB) Reopen() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	if d.failed.Load() == nil {
		return nil
	}
	if !d.lockPebble(reopenDrainWithin) {
		return fmt.Errorf("state: reopen: uses of the failed DB did not end within %v; try again", reopenDrainWithin)
	}
	defer d.pmu.Unlock()
	if d.abandoned {
		return errAbandoned
	}
	if d.pdb != nil {
		err := d.closePebble()
		d.pdb = nil // closed or abandoned: never used again
		d.genDurable = append(d.genDurable, d.durable.Load())
		if errors.Is(err, errCloseTimedOut) {
			d.abandoned = true // it still holds the directory's lock
			err = fmt.Errorf("%w: %w", errAbandoned, err)
			d.failed.Store(&WriteError{Op: "reopen", Err: err}) // what Failure reports from now on
			return err
		}
	}
	pdb, err := d.openPebble()
	if err != nil {
		return fmt.Errorf("state: reopen: %w", err)
	}
	d.pdb = pdb
	if err := d.loadRegistry(); err != nil {
		return fmt.Errorf("state: reopen: %w", err)
	}
	d.failed.Store(nil)
	return nil
}

// lockPebble takes pmu exclusively within bound; false when it could not.
func (d *DB) lockPebble(bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	for !d.pmu.TryLock() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// enter starts a call of the store: s.mu locked and the Pebble DB held in
// s.pdb until exit is called. A store lost with a reopen fails.
func (s *pebbleStore) enter() (exit func(), err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errStoreClosed
	}
	pdb, done, err := s.db.use()
	if err != nil {
		s.mu.Unlock()
		return nil, err
	}
	s.pdb, s.done = pdb, done
	if err := s.current(); err != nil {
		s.exit()
		return nil, err
	}
	if s.exitFn == nil {
		s.exitFn = s.exit // made once: a closure per call was two allocations per store operation
	}
	return s.exitFn, nil
}

// exit ends the call enter began.
func (s *pebbleStore) exit() {
	done := s.done
	s.pdb, s.done = nil, nil
	done()
	s.mu.Unlock()
}

// current checks the store against the DB's generation (see above); s.mu
// and pmu are held.
//
// A store whose commit failed (lost already, with the write's error) is
// lost with the reopen too: from the reopen on it fails with
// errLostWithReopen, so its owner knows to open it again from its
// checkpoint instead of retrying it.
func (s *pebbleStore) current() error {
	g := s.db.generation()
	if s.gen == g {
		return s.lost
	}
	if s.lost != nil || s.batch != nil || s.lastWrite > s.db.genDurable[s.gen] {
		s.lost = &WriteError{Op: "store " + s.part.id.String(), Err: errLostWithReopen}
		s.dropBatch()
	}
	s.gen = g
	return s.lost
}

// dropBatch discards the pending batch; s.mu is held.
func (s *pebbleStore) dropBatch() {
	if s.batch != nil {
		_ = s.batch.Close()
		s.batch, s.pending, s.unmirrored, s.hidden = nil, nil, false, false
	}
	s.closeSpent()
	s.delta, s.ckpt = 0, nil
}
