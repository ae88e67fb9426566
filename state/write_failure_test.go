package state

import (
	"errors"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// fullDisk is an in-memory file system whose writes fail with ENOSPC
// while full is set.
func fullDisk() (vfs.FS, *atomic.Bool) {
	var full atomic.Bool
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.InjectorFunc(func(op errorfs.Op) error {
		if full.Load() && op.Kind.ReadOrWrite() == errorfs.OpIsWrite {
			return syscall.ENOSPC
		}
		return nil
	}))
	return fs, &full
}

// TestFullDiskFailsWritesNotServer: a commit on a full disk returns a
// *WriteError naming the store and the full disk instead of Pebble's
// fatal panic; from then on every write fails at once with it (Failure
// says so) while reads go on; Close returns within
// its bound; opened again once the disk has room, the DB holds what was
// committed before and takes writes.
func TestFullDiskFailsWritesNotServer(t *testing.T) {
	fs, full := fullDisk()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	st, err := db.Store(testID, WithCache(0))
	must(t, err)
	must(t, st.Put([]byte("a"), []byte("1")))
	must(t, st.Flush())

	full.Store(true)
	must(t, st.Put([]byte("b"), []byte("2")))
	err = st.Flush()
	var we *WriteError
	if !errors.As(err, &we) || !we.NoSpace() || !strings.Contains(err.Error(), "commit app/store/3") ||
		!strings.Contains(err.Error(), "is full") {
		t.Fatalf("flush on a full disk = %v, want a WriteError for the full disk naming the store", err)
	}
	if !errors.Is(db.Failure(), we) {
		t.Fatalf("Failure() = %v, want %v", db.Failure(), we)
	}
	full.Store(false) // the pipeline stays broken: writes still fail, at once
	if err := st.Put([]byte("c"), []byte("3")); !IsWriteFailure(err) {
		t.Fatalf("put into the store whose commit failed = %v, want the write failure", err)
	}
	if err := db.CommitTransaction(StoreID{App: "app", Name: "other", Partition: 1}, 3); !IsWriteFailure(err) {
		t.Fatalf("a write after the failure = %v, want the DB's write failure", err)
	}
	if err := db.Checkpoint(testID, 7); !IsWriteFailure(err) {
		t.Fatalf("checkpoint after the failure = %v, want the DB's write failure", err)
	}
	var got []string
	must(t, db.ReadCommitted(testID, nil, nil, func(k, v []byte) bool { got = append(got, string(k)+"="+string(v)); return true }))
	// (b may be there too: Pebble applied the batch it could not log.)
	if len(got) == 0 || got[0] != "a=1" {
		t.Fatalf("committed state after the failure: %v, want a=1 first", got)
	}
	must(t, st.Close())
	if err := db.Close(); !IsWriteFailure(err) {
		t.Fatalf("close of the failed DB = %v, want its write failure", err)
	}

	db, err = Open("data", WithFS(fs))
	must(t, err)
	defer db.Close()
	if db.Failure() != nil {
		t.Fatalf("reopened DB failed: %v", db.Failure())
	}
	st, err = db.Store(testID, WithCache(0))
	must(t, err)
	defer st.Close()
	if v, err := st.Get([]byte("a")); err != nil || string(v) != "1" {
		t.Fatalf("a after reopening = %q, %v", v, err)
	}
	must(t, st.Put([]byte("d"), []byte("4")))
	must(t, st.Flush())
}
