package state

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// windowDump is every window of w, by FetchAll, as text in its order.
func windowDump(t *testing.T, w *WindowStore, from, to int64) string {
	t.Helper()
	var b strings.Builder
	must(t, w.FetchAll(from, to, func(key []byte, ts int64, v []byte) bool {
		fmt.Fprintf(&b, "%q@%d=%q ", key, ts, v)
		return true
	}))
	return b.String()
}

// committedDump is the partition's committed entries by ReadCommitted.
func committedDump(t *testing.T, db *DB, id StoreID) string {
	t.Helper()
	var b strings.Builder
	must(t, db.ReadCommitted(id, nil, nil, func(k, v []byte) bool {
		fmt.Fprintf(&b, "%x=%q ", k, v)
		return true
	}))
	return b.String()
}

// TestSegmentedWindowStoreMatchesPlain runs one random sequence of puts,
// deletes, gets, fetches, scans, purges and flushes against a plain and
// a segmented window store side by side (a small cache, so ranges merge
// it with Pebble) and requires the same answers, in the same order, from
// the stores and from the committed readers.
func TestSegmentedWindowStoreMatchesPlain(t *testing.T) {
	db := memDB(t)
	plainID, segID := testID, StoreID{App: testID.App, Name: "segmented", Partition: testID.Partition}
	plain, err := db.WindowStore(plainID, WithCache(2<<10))
	must(t, err)
	seg, err := db.WindowStore(segID, WithCache(2<<10))
	must(t, err)
	must(t, seg.UseSegments(37))
	keys := [][]byte{[]byte("a"), []byte("ab"), []byte("b"), []byte("a\x00"), []byte("abc"), {}, []byte("z")}
	r := rand.New(rand.NewPCG(1, 2))
	purged := int64(0)
	ops := 20000
	if invariants {
		ops = 1500 // every commit then counts the partition's keys
	}
	for i := range ops {
		key, ts := keys[r.IntN(len(keys))], max(purged-50+r.Int64N(650), 0)
		switch op := r.IntN(100); {
		case op < 50:
			v := []byte(fmt.Sprint(i))
			if r.IntN(10) == 0 {
				v = nil
			}
			must(t, plain.Put(key, ts, v))
			must(t, seg.Put(key, ts, v))
		case op < 70:
			a, err := plain.Get(key, ts)
			must(t, err)
			b, err := seg.Get(key, ts)
			must(t, err)
			if !bytes.Equal(a, b) {
				t.Fatalf("op %d: get %q@%d: plain %q, segmented %q", i, key, ts, a, b)
			}
		case op < 85:
			from, to := ts-r.Int64N(300), ts+r.Int64N(300)
			var a, b []string
			must(t, plain.Fetch(key, from, to, func(ts int64, v []byte) bool { a = append(a, fmt.Sprint(ts, string(v))); return true }))
			must(t, seg.Fetch(key, from, to, func(ts int64, v []byte) bool { b = append(b, fmt.Sprint(ts, string(v))); return true }))
			if !slices.Equal(a, b) {
				t.Fatalf("op %d: fetch %q [%d, %d]: plain %v, segmented %v", i, key, from, to, a, b)
			}
		case op < 90:
			from, to := ts-r.Int64N(600), ts+r.Int64N(600)
			if a, b := windowDump(t, plain, from, to), windowDump(t, seg, from, to); a != b {
				t.Fatalf("op %d: fetch-all [%d, %d]:\nplain     %s\nsegmented %s", i, from, to, a, b)
			}
		case op < 95:
			must(t, plain.Flush())
			must(t, seg.Flush())
			if a, b := committedDump(t, db, plainID), committedDump(t, db, segID); a != b {
				t.Fatalf("op %d: committed:\nplain     %s\nsegmented %s", i, a, b)
			}
		default:
			purged += r.Int64N(100)
			must(t, plain.Purge(purged))
			must(t, seg.Purge(purged))
		}
	}
	must(t, plain.Flush())
	must(t, seg.Flush())
	var all [][]byte
	for _, k := range keys {
		for ts := max(purged-50, 0); ts < purged+600; ts++ {
			all = append(all, WindowKey(k, ts, 0))
		}
	}
	slices.SortFunc(all, bytes.Compare)
	all = slices.CompactFunc(all, bytes.Equal)
	many := func(id StoreID) string {
		var b strings.Builder
		must(t, db.GetManyCommitted(id, all, func(k, v []byte) bool { fmt.Fprintf(&b, "%x=%q ", k, v); return true }))
		return b.String()
	}
	if a, b := many(plainID), many(segID); a != b || a == "" {
		t.Fatalf("get-many:\nplain     %s\nsegmented %s", a, b)
	}
	_, pk, err := db.ApproxSize(plainID)
	must(t, err)
	_, sk, err := db.ApproxSize(segID)
	must(t, err)
	if pk != sk || pk == 0 {
		t.Fatalf("key counts: plain %d, segmented %d", pk, sk)
	}
}

// TestSegmentedPurgeVisitsExpiredSegments: a Purge shows its match only
// the keys of the segments before the cutoff's and of the cutoff's own.
func TestSegmentedPurgeVisitsExpiredSegments(t *testing.T) {
	w, err := memDB(t).WindowStore(testID, WithCache(0))
	must(t, err)
	must(t, w.UseSegments(100))
	for ts := int64(0); ts < 1000; ts += 10 { // 10 segments of 10 windows each
		for _, k := range []string{"x", "y"} {
			must(t, w.Put([]byte(k), ts, []byte("v")))
		}
	}
	must(t, w.Flush())
	visited := 0
	must(t, bottom(t, w.s).purge(func(k []byte) bool {
		visited++
		_, ts, _, err := SplitWindowKey(k)
		return err == nil && ts < 250
	}, 250))
	if visited != 3*20 { // segments 0, 1 and 2 (the cutoff's)
		t.Fatalf("purge before 250 visited %d keys, want 60", visited)
	}
	if got := windowDump(t, w, 0, 255); got != `"x"@250="v" "y"@250="v" ` {
		t.Fatalf("after the purge: %s", got)
	}
	// Scans start at the first segment the purge left (emptyBelow), and
	// a key written below it again is found again.
	if ps := bottom(t, w.s); ps.emptyBelow != 2 {
		t.Fatalf("emptyBelow %d after the purge, want 2", ps.emptyBelow)
	}
	must(t, bottom(t, w.s).Put(WindowKey([]byte("z"), 5, 0), []byte("late")))
	if got := windowDump(t, w, 0, 255); got != `"x"@250="v" "y"@250="v" "z"@5="late" ` {
		t.Fatalf("after a write below the purged segments: %s", got)
	}
}

// TestUseSegmentsRewritesPlainStore opens a store written in the plain
// layout (as every version before segments wrote it, and as a restore
// into a partition never opened writes it), segments it, and reads every
// window back, before and after the DB is reopened from disk.
func TestUseSegmentsRewritesPlainStore(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	must(t, err)
	w, err := db.WindowStore(testID)
	must(t, err)
	want := map[string]string{}
	for i := range 500 {
		k, ts := fmt.Sprintf("k%d", i%37), int64(i*13)
		v := fmt.Sprint(i)
		must(t, w.Put([]byte(k), ts, []byte(v)))
		want[fmt.Sprintf("%s@%d", k, ts)] = v
	}
	must(t, w.Flush())
	before := windowDump(t, w, 0, 1<<62)
	plainCommitted := committedDump(t, db, testID)
	must(t, w.Close())
	must(t, db.Close())

	check := func(db *DB, w *WindowStore, what string) {
		t.Helper()
		for kt, v := range want {
			k, ts, _ := strings.Cut(kt, "@")
			var start int64
			fmt.Sscan(ts, &start)
			got, err := w.Get([]byte(k), start)
			must(t, err)
			if string(got) != v {
				t.Fatalf("%s: %s = %q, want %q", what, kt, got, v)
			}
		}
		if got := windowDump(t, w, 0, 1<<62); got != before {
			t.Fatalf("%s: fetch-all\n%s\nwant\n%s", what, got, before)
		}
		if got := committedDump(t, db, testID); got != plainCommitted {
			t.Fatalf("%s: committed\n%s\nwant\n%s", what, got, plainCommitted)
		}
		if _, keys, err := db.ApproxSize(testID); err != nil || keys != int64(len(want)) {
			t.Fatalf("%s: %d keys (%v), want %d", what, keys, err, len(want))
		}
	}
	db, err = Open(dir)
	must(t, err)
	s, err := db.Store(testID)
	must(t, err)
	w = NewWindowStore(s)
	must(t, w.UseSegments(1000))
	if p, _, _ := db.known(testID); p.segment.Load() != 1000 {
		t.Fatalf("segment interval %d after UseSegments, want 1000", p.segment.Load())
	}
	check(db, w, "rewritten")
	must(t, w.Close())
	must(t, db.Close())

	db, err = Open(dir)
	must(t, err)
	defer db.Close()
	if p, _, _ := db.known(testID); p.segment.Load() != 1000 {
		t.Fatalf("segment interval %d after reopening, want 1000 (from the marker)", p.segment.Load())
	}
	s, err = db.Store(testID)
	must(t, err)
	w = NewWindowStore(s)
	must(t, w.UseSegments(50)) // the stored interval stays
	if p, _, _ := db.known(testID); p.segment.Load() != 1000 {
		t.Fatalf("segment interval %d after a second UseSegments, want 1000", p.segment.Load())
	}
	check(db, w, "reopened")
	must(t, w.Close())
}

// TestRestoreIntoSegmentedStore: a restore (a standby's, or after a
// crash) into a partition already segmented writes the segmented layout,
// and Wipe drops the marker with the data.
func TestRestoreIntoSegmentedStore(t *testing.T) {
	db := memDB(t)
	w, err := db.WindowStore(testID)
	must(t, err)
	must(t, w.UseSegments(10))
	must(t, w.Close())
	r := db.Restorer(testID)
	for i := range 50 {
		must(t, r.Restore(WindowKey([]byte("k"), int64(i*7), 0), []byte(fmt.Sprint(i)), 0, int64(i)))
	}
	must(t, r.Done())
	w, err = db.WindowStore(testID)
	must(t, err)
	must(t, w.UseSegments(10))
	n := 0
	must(t, w.Fetch([]byte("k"), 0, 1<<62, func(ts int64, v []byte) bool {
		if ts != int64(n*7) || string(v) != fmt.Sprint(n) {
			t.Fatalf("window %d: %d=%q", n, ts, v)
		}
		n++
		return true
	}))
	if n != 50 {
		t.Fatalf("fetched %d restored windows, want 50", n)
	}
	must(t, w.Close())
	must(t, db.Wipe(testID))
	s, err := db.Store(testID)
	must(t, err)
	if p, _, _ := db.known(testID); p.segment.Load() != 0 {
		t.Fatalf("segment interval %d after Wipe, want 0 (plain)", p.segment.Load())
	}
	must(t, s.Close())
}
