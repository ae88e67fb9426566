package state

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
	"github.com/cockroachdb/pebble/v2/vfs"
)

func memPebble(t testing.TB) *pebble.DB {
	t.Helper()
	pdb, err := pebble.Open("", &pebble.Options{FS: vfs.NewMem(), Logger: quietLogger{}})
	must(t, err)
	t.Cleanup(func() { _ = pdb.Close() })
	return pdb
}

// randomWrites fills b with n Sets and Deletes of keys drawn from keys
// distinct ones (so most keys are written more than once, some deleted
// after a set, some set after a delete) and returns what the DB holds
// once b is applied in order. With long, the keys differ first in one
// of three leading letters and then only after 20 bytes they share, so
// most order words tie and their keys decide.
func randomWrites(t testing.TB, r *rand.Rand, b *pebble.Batch, n, keys int, long bool) map[string]string {
	want := make(map[string]string)
	for i := range n {
		k := fmt.Sprintf("k%05d", r.Intn(keys))
		if long {
			k = fmt.Sprintf("%c-twenty-shared-bytes-%05d", 'a'+r.Intn(3), r.Intn(keys))
		}
		if r.Intn(4) == 0 {
			must(t, b.Delete([]byte(k), nil))
			delete(want, k)
			continue
		}
		v := fmt.Sprint(i)
		must(t, b.Set([]byte(k), []byte(v), nil))
		want[k] = v
	}
	return want
}

func dbContents(t *testing.T, pdb *pebble.DB) map[string]string {
	t.Helper()
	got := make(map[string]string)
	it, err := pdb.NewIter(nil)
	must(t, err)
	for it.First(); it.Valid(); it.Next() {
		got[string(it.Key())] = string(it.Value())
	}
	must(t, it.Close())
	return got
}

func sameContents(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("DB holds %d keys, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("DB holds %s=%q, want %q", k, got[k], v)
		}
	}
}

// batchKeys lists b's record keys in batch order.
func batchKeys(t *testing.T, b *pebble.Batch) [][]byte {
	t.Helper()
	var keys [][]byte
	r := batchrepr.Read(b.Repr())
	for {
		_, k, _, ok, err := r.Next()
		must(t, err)
		if !ok {
			return keys
		}
		keys = append(keys, k)
	}
}

// TestSortedBatchMatchesModel: a batch of Sets and Deletes, many of the
// same keys, committed in key order leaves the DB holding what the batch
// in its own order would (the last write of each key wins), and its
// records are in key order.
func TestSortedBatchMatchesModel(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for _, c := range []struct {
		n    int
		long bool
	}{{minSortedRecords, false}, {1000, false}, {20_000, false}, {1000, true}, {20_000, true}} {
		n := c.n
		pdb := memPebble(t)
		var bs batchSorter
		b := pdb.NewBatch()
		want := randomWrites(t, r, b, n, n/3, c.long)
		count := b.Count()
		b = bs.sorted(pdb, b)
		if b.Count() != count {
			t.Fatalf("n=%d: sorted batch holds %d records, want %d", n, b.Count(), count)
		}
		keys := batchKeys(t, b)
		for i := 1; i < len(keys); i++ {
			if bytes.Compare(keys[i-1], keys[i]) > 0 {
				t.Fatalf("n=%d: record %d (%s) follows %s", n, i, keys[i], keys[i-1])
			}
		}
		must(t, b.Commit(pebble.Sync))
		must(t, b.Close())
		sameContents(t, dbContents(t, pdb), want)
	}
}

// TestSortedBatchLeavesOthersAlone: a small batch, one already in order
// and one holding a range deletion are committed as written (a range
// deletion deletes only what comes before it in the batch).
func TestSortedBatchLeavesOthersAlone(t *testing.T) {
	pdb := memPebble(t)
	var bs batchSorter
	r := rand.New(rand.NewSource(5))

	small := pdb.NewBatch()
	randomWrites(t, r, small, minSortedRecords-1, 10, false)
	if got := bs.sorted(pdb, small); got != small {
		t.Fatal("a batch under minSortedRecords was rebuilt")
	}

	ordered := pdb.NewBatch()
	for i := range 2 * minSortedRecords {
		must(t, ordered.Set(fmt.Appendf(nil, "k%05d", i), []byte("v"), nil))
	}
	if got := bs.sorted(pdb, ordered); got != ordered {
		t.Fatal("a batch already in key order was rebuilt")
	}

	ranged := pdb.NewBatch()
	for i := range 2 * minSortedRecords {
		must(t, ranged.Set(fmt.Appendf(nil, "k%05d", 2*minSortedRecords-i), []byte("old"), nil))
	}
	must(t, ranged.DeleteRange([]byte("k"), []byte("l"), nil))
	must(t, ranged.Set([]byte("k00001"), []byte("new"), nil))
	if got := bs.sorted(pdb, ranged); got != ranged {
		t.Fatal("a batch with a range deletion was rebuilt")
	}
	must(t, ranged.Commit(pebble.Sync))
	sameContents(t, dbContents(t, pdb), map[string]string{"k00001": "new"})
}

// TestStoreCommitsSortedBatch: a store's commit of random puts and
// deletes, through the cache and without it, reads back what was
// written, and keeps the key count.
func TestStoreCommitsSortedBatch(t *testing.T) {
	for _, cache := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprint("cache=", cache), func(t *testing.T) {
			db := memDB(t)
			st, err := db.Store(testID, WithCache(cache))
			must(t, err)
			r := rand.New(rand.NewSource(cache))
			want := make(map[string]string)
			for i := range 5000 {
				k := fmt.Sprintf("key-%04d", r.Intn(2000))
				if r.Intn(5) == 0 {
					must(t, st.Put([]byte(k), nil))
					delete(want, k)
					continue
				}
				v := fmt.Sprint(i)
				must(t, st.Put([]byte(k), []byte(v)))
				want[k] = v
			}
			must(t, st.Flush())
			got := make(map[string]string)
			must(t, st.Range(nil, nil, func(k, v []byte) bool {
				got[string(k)] = string(v)
				return true
			}))
			sameContents(t, got, want)
			if n := bottom(t, st).part.keys.Load(); n != int64(len(want)) {
				t.Fatalf("key count %d, want %d", n, len(want))
			}
		})
	}
}
