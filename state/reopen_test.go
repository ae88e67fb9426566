package state

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// diskFailingFor is an in-memory file system whose writes to files
// matching match fail with errno while full is set.
func diskFailingFor(errno syscall.Errno, match func(path string) bool) (vfs.FS, *atomic.Bool) {
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite && match(op.Path) {
			return errno
		}
		return nil
	}))
	return fs, &full
}

// waitFailed waits for db to report a write failure (a fact a background
// goroutine of Pebble's establishes), failing the test past a generous
// bound.
func waitFailed(t *testing.T, db *DB) error {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for db.Failure() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the DB never reported the failed background write")
		}
		time.Sleep(time.Millisecond)
	}
	return db.Failure()
}

// TestReopenAfterFullDisk: a commit fails on the full disk; once the disk
// has room, Reopen opens the DB again in place while readers keep reading
// through it (none sees it closed): the failure is gone, what was
// committed before is there, the store whose commit failed is lost (its
// calls fail with a *WriteError until it is closed and opened again, one
// that says so: IsLostWithReopen, what a standby feeder renews on), a
// store that wrote nothing since its last synced commit goes on, and
// writes are taken again. The failure hook heard of the failure once.
func TestReopenAfterFullDisk(t *testing.T) {
	fs, full := fullDisk()
	var hooked atomic.Int32
	db, err := Open("data", WithFS(fs), WithFailureHook(func(err error) {
		if IsWriteFailure(err) {
			hooked.Add(1)
		}
	}))
	must(t, err)
	defer db.Close()
	failing, err := db.Store(testID, WithCache(0))
	must(t, err)
	cleanID := StoreID{App: "app", Name: "clean", Partition: 0}
	clean, err := db.Store(cleanID, WithCache(0))
	must(t, err)
	must(t, failing.Put([]byte("a"), []byte("1")))
	must(t, failing.Flush())
	must(t, clean.Put([]byte("x"), []byte("1")))
	must(t, clean.Flush())
	must(t, db.Checkpoint(cleanID, 5))

	full.Store(true)
	must(t, failing.Put([]byte("b"), []byte("2")))
	if err := failing.Flush(); !IsWriteFailure(err) {
		t.Fatalf("flush on the full disk = %v, want a write failure", err)
	}
	full.Store(false)

	stop := make(chan struct{})
	var readers sync.WaitGroup
	var reads atomic.Int64
	readErr := make(chan error, 4)
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				v, err := db.GetCommitted(cleanID, []byte("x"))
				if err == nil && string(v) != "1" {
					err = fmt.Errorf("x = %q", v)
				}
				if off, ok := db.Checkpointed(cleanID); err == nil && (!ok || off != 5) {
					err = fmt.Errorf("checkpoint %d %v", off, ok)
				}
				if err != nil {
					readErr <- err
					return
				}
				_, _, _ = db.ApproxSize(testID)
				reads.Add(1)
			}
		}()
	}
	for reads.Load() < 10 { // the readers are reading
		time.Sleep(time.Millisecond)
	}
	must(t, db.Reopen())
	before := reads.Load()
	for reads.Load() < before+10 { // and read on through the new DB
		time.Sleep(time.Millisecond)
	}
	close(stop)
	readers.Wait()
	close(readErr)
	for err := range readErr {
		t.Fatalf("a reader during the reopen: %v", err)
	}

	if db.Failure() != nil {
		t.Fatalf("Failure() after Reopen = %v", db.Failure())
	}
	if n := hooked.Load(); n != 1 {
		t.Fatalf("the failure hook was called %d times, want once", n)
	}
	if _, err := failing.Get([]byte("a")); !IsWriteFailure(err) || !IsLostWithReopen(err) || !strings.Contains(err.Error(), "restore it") {
		t.Fatalf("the store whose commit failed, after the reopen: %v, want it lost with the reopen", err)
	}
	must(t, failing.Close())
	if v, err := clean.Get([]byte("x")); err != nil || string(v) != "1" {
		t.Fatalf("the clean store after the reopen: %q, %v", v, err)
	}
	must(t, clean.Put([]byte("y"), []byte("2")))
	must(t, clean.Flush())
	again, err := db.Store(testID, WithCache(0))
	must(t, err)
	defer again.Close()
	if v, err := again.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("a, committed before the failure, after the reopen: %q, %v", v, err)
	}
	must(t, again.Put([]byte("c"), []byte("3")))
	must(t, again.Flush())
	must(t, clean.Close())
}

// TestReopenLosesUnsyncedStore: a store whose last commit was not synced
// when the disk failed (a Range's early commit) may have lost it with
// the old WAL, so the reopen loses the store, not the write.
func TestReopenLosesUnsyncedStore(t *testing.T) {
	fs, full := fullDisk()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	defer db.Close()
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	defer st.Close()
	must(t, st.Put([]byte("a"), []byte("1")))
	must(t, st.Range(nil, nil, func(_, _ []byte) bool { return true })) // commits a, unsynced
	full.Store(true)
	if err := db.Checkpoint(StoreID{App: "app", Name: "other", Partition: 0}, 1); !IsWriteFailure(err) {
		t.Fatalf("a write on the full disk = %v, want a write failure", err)
	}
	full.Store(false)
	must(t, db.Reopen())
	if err := st.Put([]byte("b"), []byte("2")); !IsWriteFailure(err) || !IsLostWithReopen(err) {
		t.Fatalf("the store with an unsynced commit after the reopen: %v, want it lost", err)
	}
}

// TestReopenLosesUnsyncedRestorer: a standby's restorer whose applied
// records were not durable at a reopen is lost too (IsLostWithReopen);
// once it is done with, a new restorer of the same store takes records
// again from its checkpoint (what a standby feeder does, exec/standby.go).
func TestReopenLosesUnsyncedRestorer(t *testing.T) {
	fs, full := fullDisk()
	db, err := Open("data", WithFS(fs), WithSync(false))
	must(t, err)
	defer db.Close()
	rs := db.Restorer(testID)
	must(t, rs.Restore([]byte("a"), []byte("1"), 0, 0))
	must(t, rs.Commit()) // checkpoint 1, unsynced
	full.Store(true)
	if err := db.Checkpoint(StoreID{App: "app", Name: "other", Partition: 0}, 1); !IsWriteFailure(err) {
		t.Fatalf("a write on the full disk = %v, want a write failure", err)
	}
	full.Store(false)
	must(t, db.Reopen())
	err = rs.Restore([]byte("b"), []byte("2"), 0, 1)
	if err == nil {
		err = rs.Commit()
	}
	if !IsLostWithReopen(err) {
		t.Fatalf("the restorer with unsynced records after the reopen: %v, want it lost", err)
	}
	_ = rs.Done()
	from, _ := db.Checkpointed(testID)
	rs = db.Restorer(testID)
	must(t, rs.Restore([]byte("b"), []byte("2"), 0, from))
	must(t, rs.Done())
}

// TestBackgroundFlushOnFullDiskFailsDB: a memtable flush that cannot
// write its table (ENOSPC on .sst files only, so the WAL still takes
// commits) fails the DB from Pebble's flush goroutine, where the file
// system's disk-full callback sees it, instead of being retried until
// writes stall; the DB recovers by Reopen.
func TestBackgroundFlushOnFullDiskFailsDB(t *testing.T) {
	fs, full := diskFailingFor(syscall.ENOSPC, func(p string) bool { return strings.HasSuffix(p, ".sst") })
	testBackgroundFailure(t, fs, full, "is full", "write into the data directory")
}

// TestBackgroundFlushIOErrorFailsDB: the same flush failing with EIO
// (no disk-full callback) reaches Pebble's EventListener.BackgroundError,
// which fails the DB the same way.
func TestBackgroundFlushIOErrorFailsDB(t *testing.T) {
	fs, full := diskFailingFor(syscall.EIO, func(p string) bool { return strings.HasSuffix(p, ".sst") })
	testBackgroundFailure(t, fs, full, "input/output error", "background write")
}

// TestManifestWriteErrorFailsDB: a flush whose table is written but whose
// MANIFEST update is refused (EIO) makes Pebble call Logger.Fatalf from
// its flush goroutine; that no longer panics (it would end the process
// there) but fails the DB, which recovers by Reopen.
func TestManifestWriteErrorFailsDB(t *testing.T) {
	fs, full := diskFailingFor(syscall.EIO, func(p string) bool { return strings.Contains(p, "MANIFEST") })
	testBackgroundFailure(t, fs, full, "MANIFEST", "background write")
}

func testBackgroundFailure(t *testing.T, fs vfs.FS, full *atomic.Bool, wants ...string) {
	logs := &RecordingLogger{}
	db, err := Open("data", WithFS(fs), WithLogger(logs))
	must(t, err)
	defer db.Close()
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	for i := range 100 {
		must(t, st.Put(fmt.Appendf(nil, "k%03d", i), []byte("v")))
	}
	must(t, st.Flush())
	must(t, st.Close())

	full.Store(true)
	if _, err := db.pdb.AsyncFlush(); err != nil {
		t.Fatal(err)
	}
	ferr := waitFailed(t, db)
	var we *WriteError
	if !errors.As(ferr, &we) {
		t.Fatalf("Failure() = %v, want a WriteError", ferr)
	}
	for _, want := range wants {
		if !strings.Contains(ferr.Error(), want) {
			t.Fatalf("Failure() = %v, want it to say %q", ferr, want)
		}
	}
	t.Logf("failure: %v; logged: %q", ferr, logs.Errors())
	if err := db.Checkpoint(testID, 9); !IsWriteFailure(err) {
		t.Fatalf("a write after the background failure = %v, want the failure", err)
	}
	full.Store(false)
	must(t, db.Reopen())
	st, err = db.Store(testID, WithCache(0))
	must(t, err)
	defer st.Close()
	for _, k := range []string{"k000", "k099"} {
		if v, err := st.Get([]byte(k)); err != nil || string(v) != "v" {
			t.Fatalf("%s after the reopen: %q, %v", k, v, err)
		}
	}
	must(t, st.Put([]byte("new"), []byte("v")))
	must(t, st.Flush())
	if len(logs.Errors()) == 0 {
		t.Fatal("the failure was not logged")
	}
}

// TestWALWriterErrorIsAFailureNotACrash: an unsynced commit whose WAL
// write fails in Pebble's flush goroutine (EIO: no disk-full callback)
// leaves the error in the WAL writer, and Pebble panics with it at the
// next commit, holding its commit pipeline's lock. That panic is the DB's
// failure, not the end of the process; since that Pebble DB can no longer
// be closed, Reopen gives up within its bound saying to restart.
func TestWALWriterErrorIsAFailureNotACrash(t *testing.T) {
	fs, full := diskFailingFor(syscall.EIO, func(p string) bool { return strings.HasSuffix(p, ".log") })
	db, err := Open("data", WithFS(fs))
	must(t, err)
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	full.Store(true)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		err := st.Put(fmt.Appendf(nil, "k%d", i), []byte("v"))
		if err == nil {
			err = st.Range(nil, nil, func(_, _ []byte) bool { return false }) // an unsynced commit
		}
		if err != nil {
			if !IsWriteFailure(err) {
				t.Fatalf("commit after the WAL failed: %v, want a write failure", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no commit failed")
		}
	}
	if db.Failure() == nil {
		t.Fatal("the DB did not fail")
	}
	full.Store(false)
	if err := db.Reopen(); err == nil || !strings.Contains(err.Error(), "restart the server") {
		t.Fatalf("Reopen of the DB whose commit pipeline is stuck = %v, want it to say to restart", err)
	}
	if err := db.Failure(); !NeedsRestart(err) || !strings.Contains(err.Error(), "restart the server") {
		t.Fatalf("Failure() after the abandoned reopen = %v, want it to say to restart", err)
	}
	if err := db.Close(); !IsWriteFailure(err) {
		t.Fatalf("Close = %v, want the write failure", err)
	}
}

// TestOpenOnRefusingDiskIsAnError: creating a DB whose MANIFEST the disk
// refuses makes Pebble call Fatalf while opening; Open returns an error
// naming the directory instead of panicking.
func TestOpenOnRefusingDiskIsAnError(t *testing.T) {
	fs, full := diskFailingFor(syscall.EIO, func(p string) bool { return strings.Contains(p, "MANIFEST") })
	full.Store(true)
	db, err := Open("data", WithFS(fs))
	if err == nil {
		db.Close()
		t.Fatal("Open on a disk refusing the MANIFEST succeeded")
	}
	if !strings.Contains(err.Error(), "open data") {
		t.Fatalf("Open = %v, want an error naming the directory", err)
	}
}
