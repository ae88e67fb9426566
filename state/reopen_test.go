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

// diskFullFor is an in-memory file system whose writes to files matching
// match fail with ENOSPC while full is set.
func diskFullFor(match func(path string) bool) (vfs.FS, *atomic.Bool) {
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite && match(op.Path) {
			return syscall.ENOSPC
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
// calls fail with a *WriteError until it is closed and opened again), a
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
	if _, err := failing.Get([]byte("a")); !IsWriteFailure(err) || !strings.Contains(err.Error(), "restore it") {
		t.Fatalf("the store whose commit failed, after the reopen: %v, want it lost", err)
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
	if err := st.Put([]byte("b"), []byte("2")); !IsWriteFailure(err) {
		t.Fatalf("the store with an unsynced commit after the reopen: %v, want it lost", err)
	}
}

// TestBackgroundFlushOnFullDiskFailsDB: a memtable flush that cannot
// write its table (ENOSPC on .sst files only, so the WAL still takes
// commits) is reported through Pebble's EventListener.BackgroundError
// from its own goroutine; the DB fails like a failed commit instead of
// retrying until writes stall, and recovers by Reopen.
func TestBackgroundFlushOnFullDiskFailsDB(t *testing.T) {
	fs, full := diskFullFor(func(p string) bool { return strings.HasSuffix(p, ".sst") })
	testBackgroundFailure(t, fs, full, "no space left")
}

// TestManifestWriteOnFullDiskFailsDB: a flush whose table is written but
// whose MANIFEST update is refused makes Pebble call Logger.Fatalf from
// its flush goroutine; that no longer panics (it would end the process
// there) but fails the DB, which recovers by Reopen.
func TestManifestWriteOnFullDiskFailsDB(t *testing.T) {
	fs, full := diskFullFor(func(p string) bool { return strings.Contains(p, "MANIFEST") })
	testBackgroundFailure(t, fs, full, "MANIFEST")
}

func testBackgroundFailure(t *testing.T, fs vfs.FS, full *atomic.Bool, want string) {
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
	if !errors.As(ferr, &we) || !strings.Contains(ferr.Error(), want) || !strings.Contains(ferr.Error(), "background write") {
		t.Fatalf("Failure() = %v, want a background WriteError saying %q", ferr, want)
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
