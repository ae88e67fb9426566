package state

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
)

// # Writes the disk refuses
//
// Pebble treats a commit it cannot write to its WAL (a full disk, an I/O
// error) as fatal: it calls Logger.Fatalf, whose panic would end the
// server from whichever goroutine committed, and its commit pipeline is
// broken from then on. The DB catches that panic at each of its writes
// (write), turns it into a *WriteError, and remembers it: every later
// write fails at once with the same error (Failure reports it), instead
// of calling into the broken pipeline again; reads go on.
//
// Pebble's own goroutines fail too: a flush or compaction that cannot
// write its table reports it to EventListener.BackgroundError and is
// retried, for ever on a full disk, while the memtables fill until writes
// stall; a MANIFEST write that fails (a flush or compaction installing
// its result) calls Logger.Fatalf from that goroutine and, if Fatalf
// returns, returns the error. Both, when the error is the disk's (ENOSPC,
// EDQUOT, EIO, EROFS), become the DB's failure the same way; Fatalf
// panics only for a commit (the writer recovers it) and for what is not
// the disk's (a broken invariant: a bug, as before). The failure hook
// (WithFailureHook) hears of each failure once.
//
// Close of a failed DB is bounded by closeFailedWithin, so a shutdown
// ends however Pebble's goroutines are stuck. A failed DB stays failed
// until Reopen opens it again in place (reopen.go): the runtime does that
// once the disk takes writes again.

// closeFailedWithin bounds Close of a failed DB.
const closeFailedWithin = 10 * time.Second

// errCloseTimedOut is why a failed DB could not be closed: Pebble's
// goroutines did not end within closeFailedWithin.
var errCloseTimedOut = errors.New("Pebble's goroutines did not stop")

// WriteError is a write the DB's disk refused; from then on the DB fails
// every write with it (DB.Failure).
type WriteError struct {
	Op  string // what was written: "commit app/store/3", "checkpoint …"
	Err error
}

func (e *WriteError) Error() string {
	what := "the disk of the data directory refused a write"
	if e.NoSpace() {
		what = "the disk of the data directory is full"
	}
	return fmt.Sprintf("state: %s: %v (%s: free space there; local state takes writes again once the DB is reopened, and is restored from its changelogs where it is behind)", e.Op, e.Err, what)
}

func (e *WriteError) Unwrap() error { return e.Err }

// NoSpace reports whether the disk was full (ENOSPC, or a quota: EDQUOT).
func (e *WriteError) NoSpace() bool {
	return errors.Is(e.Err, syscall.ENOSPC) || errors.Is(e.Err, syscall.EDQUOT)
}

// IsWriteFailure reports whether err is (or wraps) a *WriteError.
func IsWriteFailure(err error) bool {
	var we *WriteError
	return errors.As(err, &we)
}

// pebbleFatal is what fatalLogger panics with: Pebble's message and the
// first error among its arguments.
type pebbleFatal struct {
	msg string
	err error
}

// fatalLogger wraps the configured logger: Fatalf reports the message
// through Errorf; a failed commit panics with a *pebbleFatal that write
// recovers, a background write the disk refused fails the DB and returns
// (Pebble returns the error after it), anything else panics.
type fatalLogger struct {
	pebble.Logger
	d *DB
}

// commitFatal is how Pebble's Fatalf for a commit it could not log starts.
const commitFatal = "pebble: fatal commit error"

func (l fatalLogger) Fatalf(format string, args ...interface{}) {
	l.Errorf(format, args...)
	f := &pebbleFatal{msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			f.err = err
			break
		}
	}
	if !strings.HasPrefix(f.msg, commitFatal) && f.err != nil && diskError(f.err) {
		l.d.fail("pebble background write", f.err)
		return
	}
	panic(f)
}

// diskError reports an error of the disk itself: full, over quota, an
// I/O error, read-only.
func diskError(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) ||
		errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EROFS)
}

// eventListener makes a background error of the disk's the DB's failure;
// others go to the logger, as Pebble's default does.
func (d *DB) eventListener() *pebble.EventListener {
	return &pebble.EventListener{BackgroundError: func(err error) {
		if diskError(err) {
			d.fail("pebble background write", err)
			return
		}
		d.cfg.logger.Errorf("pebble: background error: %v", err)
	}}
}

// write runs fn, one Pebble write named op, unless the DB failed
// already. A Fatalf panic of Pebble's, or an error fn returns for a full
// disk, becomes the DB's failure; other errors pass through as they are.
//
// fn runs with the Pebble DB held; synced says whether it syncs the WAL
// (see wrote).
func (d *DB) write(op string, synced bool, fn func(pdb *pebble.DB) error) error {
	_, err := d.writeNumbered(op, synced, fn)
	return err
}

// writeNumbered is write, returning the number of the write (wrote).
func (d *DB) writeNumbered(op string, synced bool, fn func(pdb *pebble.DB) error) (n uint64, err error) {
	if f := d.failed.Load(); f != nil {
		return 0, f
	}
	pdb, done, err := d.use()
	if err != nil {
		return 0, err
	}
	defer done()
	before := d.writes.Load()
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, d.fail(op, recovered(r))
		}
	}()
	if err = fn(pdb); err != nil {
		if diskError(err) {
			return 0, d.fail(op, err)
		}
		return 0, err
	}
	return d.wrote(before, synced), nil
}

// recovered is the cause of a panic of Pebble's during a write: its
// Fatalf's, or the WAL write error it panics with itself (commitWrite,
// when the WAL writer already holds an error: it panics holding the
// commit pipeline's lock, so that DB can no longer be closed, see
// abandoned). Any other panic goes on.
func recovered(r any) error {
	if pf, ok := r.(*pebbleFatal); ok {
		if pf.err != nil {
			return pf.err
		}
		return errors.New(pf.msg)
	}
	if err, ok := r.(error); ok && diskError(err) {
		return err
	}
	panic(r)
}

// diskFull is the file system's callback (vfs.OnDiskFull) for a write it
// sees refused for want of space, before Pebble does: the DB fails at once,
// so no later write enters a commit pipeline whose WAL writer already
// holds the error (Pebble panics there, see recovered).
func (d *DB) diskFull() {
	d.fail("write into the data directory", syscall.ENOSPC)
}

// fail records the DB's first write failure, tells the failure hook, and
// returns it.
func (d *DB) fail(op string, cause error) *WriteError {
	we := &WriteError{Op: op, Err: cause}
	if d.failed.CompareAndSwap(nil, we) {
		d.cfg.logger.Errorf("state: local state takes no more writes: %v", we)
		if d.cfg.onFailure != nil {
			d.cfg.onFailure(we)
		}
		return we
	}
	if f := d.failed.Load(); f != nil {
		return f
	}
	return we // reopened meanwhile
}

// Failure is the write failure the DB has been failing writes with since
// it happened, nil while it takes writes.
func (d *DB) Failure() error {
	if f := d.failed.Load(); f != nil {
		return f
	}
	return nil
}

// closePebble closes the Pebble DB: at once normally, within
// closeFailedWithin once it failed (its goroutines may be stuck on the
// disk; Close then returns an error and leaves them).
func (d *DB) closePebble() error {
	pdb := d.pdb
	if pdb == nil { // a reopen closed it and could not open it again
		return d.Failure()
	}
	if d.failed.Load() == nil {
		return pdb.Close()
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("state: closing the failed DB: %v", r)
			}
		}()
		done <- pdb.Close()
	}()
	select {
	case err := <-done:
		return errors.Join(d.failed.Load(), err)
	case <-time.After(closeFailedWithin):
		return fmt.Errorf("state: the failed DB did not close within %v (%w; %w); its files are left as they are", closeFailedWithin, errCloseTimedOut, d.failed.Load())
	}
}
