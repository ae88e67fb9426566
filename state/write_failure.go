package state

import (
	"errors"
	"fmt"
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
// of calling into the broken pipeline again; reads go on. Close of a
// failed DB is bounded by closeFailedWithin, so a shutdown ends however
// Pebble's goroutines are stuck. A failed DB stays failed until it is
// opened again: the runtime does that once the disk takes writes again.

// closeFailedWithin bounds Close of a failed DB.
const closeFailedWithin = 10 * time.Second

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
// through Errorf, then panics with a *pebbleFatal that write recovers.
type fatalLogger struct{ pebble.Logger }

func (l fatalLogger) Fatalf(format string, args ...interface{}) {
	l.Errorf(format, args...)
	f := &pebbleFatal{msg: fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			f.err = err
			break
		}
	}
	panic(f)
}

// write runs fn, one Pebble write named op, unless the DB failed
// already. A Fatalf panic of Pebble's, or an error fn returns for a full
// disk, becomes the DB's failure; other errors pass through as they are.
func (d *DB) write(op string, fn func() error) (err error) {
	if f := d.failed.Load(); f != nil {
		return f
	}
	defer func() {
		if r := recover(); r != nil {
			pf, ok := r.(*pebbleFatal)
			if !ok {
				panic(r)
			}
			cause := pf.err
			if cause == nil {
				cause = errors.New(pf.msg)
			}
			err = d.fail(op, cause)
		}
	}()
	err = fn()
	if err != nil && (errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)) {
		return d.fail(op, err)
	}
	return err
}

// fail records the DB's first write failure and returns it.
func (d *DB) fail(op string, cause error) *WriteError {
	we := &WriteError{Op: op, Err: cause}
	if d.failed.CompareAndSwap(nil, we) {
		return we
	}
	return d.failed.Load()
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
	if d.failed.Load() == nil {
		return d.pdb.Close()
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("state: closing the failed DB: %v", r)
			}
		}()
		done <- d.pdb.Close()
	}()
	select {
	case err := <-done:
		return errors.Join(d.failed.Load(), err)
	case <-time.After(closeFailedWithin):
		return fmt.Errorf("state: the failed DB did not close within %v (%w); its files are left as they are", closeFailedWithin, d.failed.Load())
	}
}
