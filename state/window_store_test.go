package state

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestWindowStore drives testdata/window_store. Input lines of put are
// "key@start=value" ("key@start=" deletes); every command prints the
// changelog records it caused first, keys shown split.
// The segmented layout (interval 70: the file's windows in several
// segments) must print exactly what the plain one does.
func TestWindowStore(t *testing.T) {
	for _, interval := range []int64{0, 70} {
		t.Run(fmt.Sprintf("segments=%d", interval), func(t *testing.T) {
			var w *WindowStore
			var log windowLog
			datadriven.RunTest(t, "testdata/window_store", func(t *testing.T, d *datadriven.TestData) string {
				out := runWindowCmd(t, d, &w, &log, interval)
				return strings.Join(append(log.take(), out...), "\n") + "\n"
			})
		})
	}
}

func runWindowCmd(t *testing.T, d *datadriven.TestData, w **WindowStore, log *windowLog, interval int64) []string {
	switch d.Cmd {
	case "open":
		var opts []StoreOption
		if d.HasArg("duplicates") {
			opts = append(opts, RetainDuplicates())
		}
		ws, err := memDB(t).WindowStore(testID, append(opts, WithChangelog(log))...)
		if err == nil && interval != 0 {
			err = ws.UseSegments(interval)
		}
		*w = ws
		return result(err)
	case "put":
		return windowPuts(*w, d.Input)
	case "fetch":
		var key string
		d.ScanArgs(t, "key", &key)
		from, to := timeRange(t, d)
		return fetchText(*w, []byte(key), from, to)
	case "fetch-all":
		from, to := timeRange(t, d)
		return fetchAllText(*w, from, to)
	case "purge":
		var before int64
		d.ScanArgs(t, "before", &before)
		return result((*w).Purge(before))
	case "flush":
		return result((*w).Flush())
	case "dropped":
		return []string{fmt.Sprintf("dropped=%d", (*w).Dropped())}
	}
	t.Fatalf("unknown command %q", d.Cmd)
	return nil
}

func windowPuts(w *WindowStore, input string) []string {
	for _, line := range strings.Split(input, "\n") {
		kt, v, _ := strings.Cut(line, "=")
		k, ts, _ := strings.Cut(kt, "@")
		start, _ := strconv.ParseInt(ts, 10, 64)
		var value []byte
		if v != "" {
			value = []byte(v)
		}
		if err := w.Put([]byte(k), start, value); err != nil {
			return result(err)
		}
	}
	return []string{"ok"}
}

// timeRange reads from= and to= (default unbounded).
func timeRange(t *testing.T, d *datadriven.TestData) (int64, int64) {
	from, to := int64(math.MinInt64), int64(math.MaxInt64)
	d.MaybeScanArgs(t, "from", &from)
	d.MaybeScanArgs(t, "to", &to)
	return from, to
}

func fetchText(w *WindowStore, key []byte, from, to int64) []string {
	var out []string
	err := w.Fetch(key, from, to, func(start int64, v []byte) bool {
		out = append(out, fmt.Sprintf("%d=%s", start, v))
		return true
	})
	return nonEmpty(out, err)
}

func fetchAllText(w *WindowStore, from, to int64) []string {
	var out []string
	err := w.FetchAll(from, to, func(key []byte, start int64, v []byte) bool {
		out = append(out, fmt.Sprintf("%s@%d=%s", key, start, v))
		return true
	})
	return nonEmpty(out, err)
}

func nonEmpty(out []string, err error) []string {
	if err != nil {
		return result(err)
	}
	if len(out) == 0 {
		return []string{"(empty)"}
	}
	return out
}

// windowLog shows changelog records with window keys split.
type windowLog struct{ eventLog }

func (l *windowLog) Send(key, value []byte, _ int64) {
	k, start, seq, err := SplitWindowKey(key)
	if err != nil {
		l.lines = append(l.lines, "changelog "+err.Error())
		return
	}
	l.lines = append(l.lines, fmt.Sprintf("changelog %s@%d#%d=%s", k, start, seq, show(value)))
}

// TestWindowFetchSkipsLongerKeys: a key whose bytes extend another key
// sorts among that key's windows; Fetch must skip it.
func TestWindowFetchSkipsLongerKeys(t *testing.T) {
	w, err := memDB(t).WindowStore(testID)
	must(t, err)
	short := []byte("a")
	long := append([]byte("a"), 0, 0, 0, 0, 0, 0, 0) // "a" + 7 zero bytes
	must(t, w.Put(short, 5, []byte("short@5")))
	must(t, w.Put(short, 1<<20, []byte("short@big")))
	must(t, w.Put(long, 0, []byte("long@0")))
	var got []string
	must(t, w.Fetch(short, 0, math.MaxInt64, func(start int64, v []byte) bool {
		got = append(got, fmt.Sprintf("%d=%s", start, v))
		return true
	}))
	if want := "5=short@5 1048576=short@big"; strings.Join(got, " ") != want {
		t.Fatalf("fetch: %v, want %s", got, want)
	}
}

func TestWindowKeyRoundTrip(t *testing.T) {
	k := WindowKey([]byte("key"), 1234567890123, 7)
	key, start, seq, err := SplitWindowKey(k)
	if err != nil || string(key) != "key" || start != 1234567890123 || seq != 7 {
		t.Fatalf("split: %q %d %d %v", key, start, seq, err)
	}
	if _, _, _, err := SplitWindowKey(k[:11]); err == nil {
		t.Fatal("split of a short key succeeded")
	}
}

// TestWindowDuplicatesSurviveRestart: sequence numbers continue after the
// highest stored one, so a reopened store does not overwrite duplicates,
// and the latest window start is found again.
func TestWindowDuplicatesSurviveRestart(t *testing.T) {
	db := memDB(t)
	w, err := db.WindowStore(testID, RetainDuplicates())
	must(t, err)
	if w.MaxStart() != -1 {
		t.Fatalf("empty store: MaxStart %d, want -1", w.MaxStart())
	}
	must(t, w.Put([]byte("k"), 10, []byte("first")))
	must(t, w.Put([]byte("k"), 10, []byte("second")))
	must(t, w.Put([]byte("j"), 7, []byte("older")))
	must(t, w.Flush())
	must(t, w.Close())
	w, err = db.WindowStore(testID, RetainDuplicates())
	must(t, err)
	if w.MaxStart() != 10 {
		t.Fatalf("reopened store: MaxStart %d, want 10", w.MaxStart())
	}
	must(t, w.Put([]byte("k"), 10, []byte("third")))
	var got []string
	must(t, w.Fetch([]byte("k"), 10, 10, func(_ int64, v []byte) bool {
		got = append(got, string(v))
		return true
	}))
	if strings.Join(got, " ") != "first second third" {
		t.Fatalf("duplicates after reopen: %v", got)
	}
}

func TestWindowGet(t *testing.T) {
	w, err := memDB(t).WindowStore(testID)
	must(t, err)
	must(t, w.Put([]byte("k"), 10, []byte("v")))
	for ts, want := range map[int64]string{10: "v", 11: ""} {
		if v, err := w.Get([]byte("k"), ts); err != nil || string(v) != want {
			t.Errorf("get k@%d = %q, %v", ts, v, err)
		}
	}
}

// bottom is the Pebble layer under a store's wrappers.
func bottom(t *testing.T, s Store) *pebbleStore {
	t.Helper()
	for {
		switch x := s.(type) {
		case *meteredStore:
			s = x.inner
		case *cachingStore:
			s = x.inner
		case *changeloggingStore:
			s = x.inner
		case *pebbleStore:
			return x
		default:
			t.Fatalf("unexpected layer %T", s)
		}
	}
}

// TestDuplicatesPutLooksNothingUp: a duplicates window store's key is new
// by construction (its sequence number is past every stored one), so its
// put reaches Pebble with no existence lookup, cached or not, even where
// no key filter can rule the key out, and uncached it is not mirrored in
// the pending map (its reads are ranges, which see it); a plain store's
// put of a new key still looks it up there, for the key count, which
// stays right either way.
func TestDuplicatesPutLooksNothingUp(t *testing.T) {
	for _, cache := range []int64{0, 1 << 20} {
		db := memDB(t)
		w, err := db.WindowStore(testID, RetainDuplicates(), WithCache(cache))
		must(t, err)
		ps := bottom(t, w.s)
		ps.part.filter = nil // as for a partition past filterMaxKeys
		for i := range 100 {
			must(t, w.Put([]byte("k"), int64(i), []byte("v")))
		}
		if cache == 0 && len(ps.pending) != 0 {
			t.Errorf("uncached: %d fresh keys mirrored in the pending map, want none", len(ps.pending))
		}
		n := 0
		must(t, w.Fetch([]byte("k"), 0, 1000, func(int64, []byte) bool { n++; return true }))
		if n != 100 {
			t.Errorf("cache %d: a fetch before the flush finds %d rows, want 100", cache, n)
		}
		must(t, w.Flush())
		if ps.lookups != 0 {
			t.Errorf("cache %d: 100 duplicates puts made %d existence lookups, want 0", cache, ps.lookups)
		}
		if n := ps.part.keys.Load(); n != 100 {
			t.Errorf("cache %d: key count %d, want 100", cache, n)
		}
		plain, err := db.Store(StoreID{App: "app", Name: "plain"}, WithCache(cache))
		must(t, err)
		pp := bottom(t, plain)
		pp.part.filter = nil
		must(t, plain.Put([]byte("k"), []byte("v")))
		must(t, plain.Flush())
		if pp.lookups != 1 {
			t.Errorf("cache %d: a plain put of a new key made %d lookups, want 1", cache, pp.lookups)
		}
	}
}

// TestFreshPutsInATransaction: a transactional duplicates window store
// without a cache (a stream–stream join's under exactly_once_v2) writes
// fresh keys unmirrored, and its fetches still see them before the
// transaction commits, and after.
func TestFreshPutsInATransaction(t *testing.T) {
	db := memDB(t)
	w, err := db.WindowStore(testID, RetainDuplicates(), WithCache(0), Transactional())
	must(t, err)
	for i := range 10 {
		must(t, w.Put([]byte("k"), int64(i), []byte("v"+strconv.Itoa(i))))
	}
	count := func() int {
		n := 0
		must(t, w.Fetch([]byte("k"), 0, 100, func(int64, []byte) bool { n++; return true }))
		return n
	}
	if n := count(); n != 10 {
		t.Fatalf("before the commit a fetch finds %d rows, want 10", n)
	}
	must(t, w.Flush())
	must(t, db.CommitTransactionUnsynced(testID, -1))
	if n := count(); n != 10 {
		t.Fatalf("after the commit a fetch finds %d rows, want 10", n)
	}
	if n := bottom(t, w.s).part.keys.Load(); n != 10 {
		t.Fatalf("key count %d, want 10", n)
	}
}

// TestPurgeDoesNotCopyCachedKeys: a window store's Purge shows match
// every cached entry's key; it reads the cache's own key (keyView), so a
// purge over a cache of a thousand windows, none expired, costs a few
// allocations (the store's scan), not one per entry.
func TestPurgeDoesNotCopyCachedKeys(t *testing.T) {
	ws, err := memDB(t).WindowStore(testID, WithCache(1<<20))
	must(t, err)
	defer ws.Close()
	const windows = 1000
	for i := range windows {
		must(t, ws.Put(fmt.Appendf(nil, "key-%04d", i), 1_000_000, []byte("v")))
	}
	before := int64(0)
	allocs := testing.AllocsPerRun(20, func() {
		before += 1000 // each call a later bound, so none returns early
		must(t, ws.Purge(before))
	})
	if allocs >= windows/10 {
		t.Errorf("a purge over %d cached windows made %.0f allocations, want far fewer than one each", windows, allocs)
	}
	n := 0
	must(t, ws.Fetch([]byte("key-0007"), 0, 2_000_000, func(int64, []byte) bool { n++; return true }))
	if n != 1 {
		t.Fatalf("a window no purge matched: %d found, want 1", n)
	}
}
