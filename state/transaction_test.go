package state

import (
	"fmt"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// txnWrites runs one transaction's worth of writes on a transactional
// store with a small cache: overwrites, a delete of a committed key, enough
// new keys to evict dirty entries down into the batch, a Range and a
// Flush (the cache write-down before a Kafka commit). It returns what the
// store must hold if the transaction commits.
func txnWrites(t *testing.T, st Store, committed map[string]string, round int) map[string]string {
	t.Helper()
	model := map[string]string{}
	for k, v := range committed {
		model[k] = v
	}
	for i := range 200 {
		k, v := fmt.Sprintf("k%03d", i), fmt.Sprintf("r%d-%d", round, i)
		must(t, st.Put([]byte(k), []byte(v)))
		model[k] = v
	}
	must(t, st.Put([]byte("k000"), nil))
	delete(model, "k000")
	checkRange(t, st, model, "", "")
	must(t, st.Flush())
	// Clean cache entries evicted after the flush are read back from the
	// pending batch, not from the committed data.
	for i := 200; i < 400; i++ {
		k, v := fmt.Sprintf("k%03d", i), fmt.Sprintf("r%d-%d", round, i)
		must(t, st.Put([]byte(k), []byte(v)))
		model[k] = v
	}
	if v, err := st.Get([]byte("k001")); err != nil || string(v) != model["k001"] {
		t.Fatalf("get k001 = %q %v, want %q", v, err, model["k001"])
	}
	checkRange(t, st, model, "k100", "k300")
	return model
}

// TestTransactionAbortDiscards: closing a transactional store without
// CommitTransaction leaves Pebble exactly at the last commit, whatever the
// transaction did (cached, evicted, flushed, ranged-over and deleted
// writes), and its checkpoint unchanged.
func TestTransactionAbortDiscards(t *testing.T) {
	db := memDB(t)
	var log countingLog
	open := func() Store {
		st, err := db.Store(testID, Transactional(), WithCache(2<<10), WithChangelog(&log))
		must(t, err)
		return st
	}
	st := open()
	committed := txnWrites(t, st, nil, 1)
	must(t, st.Flush())
	must(t, db.CommitTransaction(testID, 10))
	must(t, st.Close())

	st = open()
	checkRange(t, st, committed, "", "")
	sent := log.n
	txnWrites(t, st, committed, 2)
	if log.n == sent {
		t.Fatal("the aborted transaction sent no changelog records")
	}
	must(t, st.Close()) // abort
	if off, ok := db.Checkpointed(testID); !ok || off != 10 {
		t.Fatalf("checkpoint after abort = %d %v, want 10", off, ok)
	}
	_, keys, err := db.ApproxSize(testID)
	must(t, err)
	if keys != int64(len(committed)) {
		t.Fatalf("key count %d after abort, want %d", keys, len(committed))
	}
	st = open()
	defer st.Close()
	checkRange(t, st, committed, "", "")
}

// TestTransactionCommitAtomicUnderCrash: a crash before CommitTransaction
// loses the whole transaction and keeps the previous checkpoint; a crash
// after it keeps data and checkpoint together. Nothing of a transaction
// is durable before its commit, however much a Flush wrote down.
func TestTransactionCommitAtomicUnderCrash(t *testing.T) {
	fs := vfs.NewCrashableMem()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	st, err := db.Store(testID, Transactional(), WithCache(2<<10))
	must(t, err)
	first := txnWrites(t, st, nil, 1)
	must(t, st.Flush())
	must(t, db.CommitTransaction(testID, 10))
	second := txnWrites(t, st, first, 2)
	must(t, st.Flush())
	beforeCommit := fs.CrashClone(vfs.CrashCloneCfg{})
	must(t, db.CommitTransaction(testID, 20))
	afterCommit := fs.CrashClone(vfs.CrashCloneCfg{})
	must(t, db.Close())

	for _, c := range []struct {
		name  string
		fs    vfs.FS
		model map[string]string
		ckpt  int64
	}{{"before commit", beforeCommit, first, 10}, {"after commit", afterCommit, second, 20}} {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open("data", WithFS(c.fs))
			must(t, err)
			defer db.Close()
			if off, ok := db.Checkpointed(testID); !ok || off != c.ckpt {
				t.Fatalf("checkpoint %d %v, want %d", off, ok, c.ckpt)
			}
			st, err := db.Store(testID)
			must(t, err)
			defer st.Close()
			checkRange(t, st, c.model, "", "")
		})
	}
}

// TestTransactionPurgeAborted: a window store's retention purge inside an
// aborted transaction leaves the committed windows in place.
func TestTransactionPurgeAborted(t *testing.T) {
	db := memDB(t)
	ws, err := db.WindowStore(testID, Transactional())
	must(t, err)
	must(t, ws.Put([]byte("a"), 1000, []byte("1")))
	must(t, ws.Put([]byte("a"), 5000, []byte("2")))
	must(t, ws.Flush())
	must(t, db.CommitTransaction(testID, 3))
	must(t, ws.Purge(4000))
	must(t, ws.Close())
	ws, err = db.WindowStore(testID, Transactional())
	must(t, err)
	defer ws.Close()
	var starts []int64
	must(t, ws.Fetch([]byte("a"), 0, 10000, func(start int64, v []byte) bool {
		starts = append(starts, start)
		return true
	}))
	if len(starts) != 2 {
		t.Fatalf("windows after an aborted purge: %v, want both", starts)
	}
}

// TestProcessIDKept: the process id is made once and survives a reopen.
func TestProcessIDKept(t *testing.T) {
	fs := vfs.NewMem()
	db, err := Open("data", WithFS(fs))
	must(t, err)
	id, err := db.ProcessID()
	must(t, err)
	again, err := db.ProcessID()
	must(t, err)
	must(t, db.Close())
	db, err = Open("data", WithFS(fs))
	must(t, err)
	defer db.Close()
	reopened, err := db.ProcessID()
	must(t, err)
	if len(id) != 32 || again != id || reopened != id {
		t.Fatalf("process ids %q %q %q, want one 32-digit id", id, again, reopened)
	}
}
