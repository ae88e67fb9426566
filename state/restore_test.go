package state

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestRestoreInterrupted: a restore commits with a checkpoint every few
// MiB, so after a crash mid-restore the checkpoint says exactly how far
// the committed data goes.
func TestRestoreInterrupted(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	r := db.Restorer(testID)
	r.SetTotal(10000)
	value := []byte(strings.Repeat("v", 1000))
	for i := range 10000 {
		must(t, r.Restore(fmt.Appendf(nil, "k%05d", i), value, 0, int64(100+i)))
	}
	if done, total := r.Progress(); done != 10000 || total != 10000 {
		t.Fatalf("progress %d/%d", done, total)
	}
	crashed := fs.CrashClone(vfs.CrashCloneCfg{})
	must(t, db.Close())

	db, err = Open("data", WithFS(crashed))
	must(t, err)
	defer db.Close()
	next, ok := db.Checkpointed(testID)
	if !ok || next <= 100 || next >= 10100 {
		t.Fatalf("checkpoint after interrupted restore: %d %v", next, ok)
	}
	_, keys, _ := db.ApproxSize(testID)
	if keys != next-100 {
		t.Fatalf("%d keys committed, checkpoint %d says %d", keys, next, next-100)
	}
}

func TestRestoreRejects(t *testing.T) {
	db := memDB(t)
	r := db.Restorer(testID)
	must(t, r.Restore([]byte("a"), []byte("1"), 0, 5))
	if err := r.Restore([]byte("a"), []byte("1"), 0, 4); err == nil {
		t.Error("an offset going backwards was accepted")
	}
	must(t, r.Done())
	if off, ok := db.Checkpointed(testID); !ok || off != 6 {
		t.Errorf("checkpoint %d %v, want 6", off, ok)
	}
	bad := db.Restorer(StoreID{App: "app"})
	if bad.Restore([]byte("a"), nil, 0, 0) == nil || bad.Done() == nil {
		t.Error("a restorer for an invalid id did not fail")
	}
}

// TestRestoreThenStore: restored data is what the store then reads, and
// the changelog of the store sees nothing of the restore.
func TestRestoreThenStore(t *testing.T) {
	db := memDB(t)
	r := db.Restorer(testID)
	must(t, r.Restore([]byte("a"), []byte("1"), 0, 0))
	must(t, r.Restore([]byte("b"), []byte("2"), 0, 1))
	must(t, r.Restore([]byte("a"), nil, 0, 2))
	must(t, r.Done())
	var log countingLog
	st, err := db.Store(testID, WithChangelog(&log))
	must(t, err)
	checkRange(t, st, map[string]string{"b": "2"}, "", "")
	if log.n != 0 {
		t.Errorf("restore sent %d changelog records", log.n)
	}
}

// TestRestorerCommitKeepsClaim: Commit makes what was restored durable
// with its checkpoint (a standby's progress) and keeps the partition
// claimed, so no task opens it until Done.
func TestRestorerCommitKeepsClaim(t *testing.T) {
	db := memDB(t)
	r := db.Restorer(testID)
	must(t, r.Restore([]byte("a"), []byte("1"), 0, 10))
	must(t, r.Commit())
	if off, ok := db.Checkpointed(testID); !ok || off != 11 {
		t.Fatalf("checkpoint after Commit %d %v, want 11", off, ok)
	}
	if _, err := db.Store(testID); err == nil {
		t.Fatal("a store opened while its restorer holds it")
	}
	must(t, r.Restore([]byte("b"), []byte("2"), 0, 12))
	must(t, r.Done())
	if off, _ := db.Checkpointed(testID); off != 13 {
		t.Fatalf("checkpoint after Done %d, want 13", off)
	}
	st, err := db.Store(testID)
	must(t, err)
	checkRange(t, st, map[string]string{"a": "1", "b": "2"}, "", "")
}
