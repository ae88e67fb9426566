package state

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// faultyFS fails table reads once toggled on. (A failed WAL write is
// fatal to Pebble, which then panics through Logger.Fatalf: there is no
// error to return from a commit it cannot vouch for.)
func faultyFS() (*errorfs.FS, *errorfs.Toggle) {
	toggle := &errorfs.Toggle{Injector: errorfs.ErrInjected.If(
		errorfs.And(errorfs.Reads, errorfs.PathMatch("data/*.sst")))}
	return errorfs.Wrap(vfs.NewMem(), toggle), toggle
}

// TestReadErrorsSurface: a table that cannot be read fails Get and Range
// with the underlying error rather than answering "absent". Enough data
// for many blocks, so the one Open read for the registry is not all.
func TestReadErrorsSurface(t *testing.T) {
	fs, toggle := faultyFS()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	st, err := db.Store(testID)
	must(t, err)
	value := []byte(strings.Repeat("v", 100))
	for i := range 1000 {
		must(t, st.Put(fmt.Appendf(nil, "k%04d", i), value))
	}
	must(t, st.Flush())
	must(t, db.pdb.Flush()) // memtable → table
	must(t, db.Close())

	// No block cache: opening the store scans its keys (for its filter of
	// written keys), which would otherwise leave every block cached.
	db, err = Open("data", WithFS(fs), WithBlockCache(0))
	must(t, err)
	defer db.Close()
	st, err = db.Store(testID)
	must(t, err)
	toggle.On()
	defer toggle.Off()
	// k0999 is far from the block Open read for the registry.
	if _, err := st.Get([]byte("k0999")); !injected(err) {
		t.Errorf("get error = %v, want the injected error", err)
	}
	err = st.Range(nil, nil, func(k, v []byte) bool { return true })
	if !injected(err) {
		t.Errorf("range error = %v, want the injected error", err)
	}
}

// TestOpenErrorNamesDir: a file system that fails everything fails Open
// with the directory in the message.
func TestOpenErrorNamesDir(t *testing.T) {
	fs := errorfs.Wrap(vfs.NewMem(), errorfs.ErrInjected)
	_, err := Open("data", WithFS(fs))
	if err == nil || !strings.Contains(err.Error(), "open data") {
		t.Fatalf("open error = %v, want one naming the directory", err)
	}
}

// TestQuietLoggerFatalPanics: Pebble's Fatalf must not return.
func TestQuietLoggerFatalPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "disk on fire") {
			t.Fatalf("recovered %v", r)
		}
	}()
	quietLogger{}.Fatalf("disk %s", "on fire")
}

// injected tells whether err comes from errorfs (Pebble re-wraps it, so
// errors.Is does not see through).
func injected(err error) bool {
	return err != nil && strings.Contains(err.Error(), errorfs.ErrInjected.Error())
}
