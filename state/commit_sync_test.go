package state

import (
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// TestCommitTransactionsSyncedOnce: store partitions committed unsynced
// are durable, each with its checkpoint, once SyncCommits returns; a crash
// before it leaves each partition consistent (data and checkpoint of the
// same commit, the last or an earlier one), never data ahead of or
// behind its checkpoint.
func TestCommitTransactionsSyncedOnce(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	ids := []StoreID{testID, {App: "app", Name: "store", Partition: 4}}
	models := make([][]map[string]string, len(ids)) // per id: committed states, by commit
	sts := make([]Store, len(ids))
	for i, id := range ids {
		st, err := db.Store(id, Transactional(), WithCache(2<<10))
		must(t, err)
		sts[i] = st
		models[i] = append(models[i], txnWrites(t, st, nil, 1))
		must(t, st.Flush())
	}
	for _, id := range ids {
		must(t, db.CommitTransactionUnsynced(id, 10))
	}
	must(t, db.SyncCommits())
	for i, id := range ids {
		models[i] = append(models[i], txnWrites(t, sts[i], models[i][0], 2))
		must(t, sts[i].Flush())
		must(t, db.CommitTransactionUnsynced(id, 20))
	}
	unsynced := fs.CrashClone(vfs.CrashCloneCfg{UnsyncedDataPercent: 50, RNG: rand.New(rand.NewPCG(1, 2))})
	must(t, db.SyncCommits())
	synced := fs.CrashClone(vfs.CrashCloneCfg{})
	for _, st := range sts {
		must(t, st.Close())
	}
	must(t, db.Close())

	check := func(t *testing.T, cfs vfs.FS, wantSynced bool) {
		db, err := Open("data", WithFS(cfs))
		must(t, err)
		defer db.Close()
		for i, id := range ids {
			off, ok := db.Checkpointed(id)
			if !ok || (off != 10 && off != 20) || wantSynced && off != 20 {
				t.Fatalf("%s: checkpoint %d %v, want 20 (or 10 before the sync)", id, off, ok)
			}
			st, err := db.Store(id)
			must(t, err)
			checkRange(t, st, models[i][off/10-1], "", "")
			must(t, st.Close())
		}
	}
	t.Run("before the sync", func(t *testing.T) { check(t, unsynced, false) })
	t.Run("after the sync", func(t *testing.T) { check(t, synced, true) })
}
