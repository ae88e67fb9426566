package state

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
)

// TestCachingMatchesModel runs random puts, deletes, gets, ranges and
// flushes against a plain map, for several cache sizes: the cache must
// never change what the store answers, and after Flush the committed data
// is the model.
func TestCachingMatchesModel(t *testing.T) {
	for _, cache := range []int64{0, 100, 1000, 1 << 20} {
		t.Run(fmt.Sprint(cache), func(t *testing.T) {
			runModel(t, cache, rand.New(rand.NewSource(cache+1)))
		})
	}
}

func runModel(t *testing.T, cache int64, rng *rand.Rand) {
	db := memDB(t)
	st, err := db.Store(testID, WithCache(cache))
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	for i := 0; i < 2000; i++ {
		k := fmt.Sprintf("k%02d", rng.Intn(40))
		switch op := rng.Intn(10); {
		case op < 5:
			v := fmt.Sprint(i)
			must(t, st.Put([]byte(k), []byte(v)))
			model[k] = v
		case op < 7:
			must(t, st.Put([]byte(k), nil))
			delete(model, k)
		case op < 8:
			checkGet(t, st, model, k)
		case op < 9:
			checkRange(t, st, model, fmt.Sprintf("k%02d", rng.Intn(40)), fmt.Sprintf("k%02d", rng.Intn(40)))
		default:
			must(t, st.Flush())
		}
	}
	must(t, st.Flush())
	checkRange(t, st, model, "", "")
	if _, keys, _ := db.ApproxSize(testID); keys != int64(len(model)) {
		t.Fatalf("key count %d, want %d", keys, len(model))
	}
}

func checkGet(t *testing.T, st Store, model map[string]string, k string) {
	t.Helper()
	v, err := st.Get([]byte(k))
	must(t, err)
	want, ok := model[k]
	if (v != nil) != ok || string(v) != want {
		t.Fatalf("get %s = %q, want %q (present %v)", k, v, want, ok)
	}
}

func checkRange(t *testing.T, st Store, model map[string]string, start, end string) {
	t.Helper()
	var lo, hi []byte
	if start != "" {
		lo = []byte(start)
	}
	if end != "" {
		hi = []byte(end)
	}
	var got []string
	must(t, st.Range(lo, hi, func(k, v []byte) bool {
		got = append(got, string(k)+"="+string(v))
		return true
	}))
	var want []string
	for k, v := range model {
		if k >= start && (end == "" || k < end) {
			want = append(want, k+"="+v)
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("range [%s, %s):\n got %v\nwant %v", start, end, got, want)
	}
}

// TestCachingAbsorbsHotKeys: 1000 updates to 10 keys send 10 changelog
// records at Flush; without a cache they send 1000.
func TestCachingAbsorbsHotKeys(t *testing.T) {
	for _, tc := range []struct {
		cache int64
		want  int
	}{{1 << 20, 10}, {0, 1000}} {
		var log countingLog
		st, err := memDB(t).Store(testID, WithCache(tc.cache), WithChangelog(&log))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 1000; i++ {
			must(t, st.Put([]byte{byte(i % 10)}, []byte(fmt.Sprint(i))))
		}
		must(t, st.Flush())
		if log.n != tc.want {
			t.Errorf("cache %d: %d changelog records, want %d", tc.cache, log.n, tc.want)
		}
	}
}

// TestCachingRangeStops: returning false stops the merge in the cache and
// below alike.
func TestCachingRangeStops(t *testing.T) {
	st, err := memDB(t).Store(testID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "c", "e"} {
		must(t, st.Put([]byte(k), []byte("stored")))
	}
	must(t, st.Flush())
	for _, k := range []string{"b", "d"} {
		must(t, st.Put([]byte(k), []byte("cached")))
	}
	for n := 1; n <= 5; n++ {
		var got int
		must(t, st.Range(nil, nil, func(k, v []byte) bool { got++; return got < n }))
		if got != n {
			t.Errorf("stop after %d: saw %d", n, got)
		}
	}
}

type countingLog struct{ n int }

func (l *countingLog) Send(key, value []byte, _ int64) { l.n++ }

var testID = StoreID{App: "app", Name: "store", Partition: 3}

func memDB(t testing.TB) *DB {
	db, err := OpenMem(WithBlockCache(8 << 20))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recordingStore is a lower layer that records how the cache writes to
// it and what it is asked.
type recordingStore struct {
	Store
	gets  int
	puts  []string // "key=value known" or "key=value unknown"
	flush []bool   // whether each write came during a flush
	in    bool
}

func (r *recordingStore) Get(key []byte) ([]byte, error) { r.gets++; return r.Store.Get(key) }
func (r *recordingStore) Put(key, value []byte) error {
	r.puts = append(r.puts, string(key)+"="+string(value)+" unknown")
	return r.Store.Put(key, value)
}
func (r *recordingStore) putKnown(key, value []byte, below presence) error {
	r.puts = append(r.puts, fmt.Sprintf("%s=%s existed=%v flushing=%v", key, value, below == present, r.in))
	return r.Store.Put(key, value)
}
func (r *recordingStore) flushing(on bool) { r.in = on }

// writingBack: the writes of a write-back are recorded as any others.
func (r *recordingStore) writingBack(bool) error { return nil }

// TestCachingMissIsNotCached: a Get that finds nothing leaves no entry
// (a second Get asks below again), but the Put that follows it knows the
// key is absent below, and a flush writes down marked as flushing.
func TestCachingMissIsNotCached(t *testing.T) {
	below := &recordingStore{Store: memStore(t)}
	c := newCachingStore(below, 1<<20, nil)
	for range 2 {
		if v, err := c.Get([]byte("k")); err != nil || v != nil {
			t.Fatalf("get k = %q, %v", v, err)
		}
	}
	if below.gets != 2 || c.entries.len() != 0 {
		t.Fatalf("after two missing gets: %d gets below, %d entries", below.gets, c.entries.len())
	}
	must(t, c.Put([]byte("k"), []byte("1")))
	must(t, c.Put([]byte("j"), []byte("2"))) // no Get before it: presence unknown
	must(t, c.Flush())
	want := "[k=1 existed=false flushing=true j=2 unknown]"
	if got := fmt.Sprint(below.puts); got != want {
		t.Fatalf("writes below %s, want %s", got, want)
	}
	if below.in {
		t.Fatal("still flushing after Flush")
	}
}

func memStore(t *testing.T) Store {
	ps, err := memDB(t).claim(testID)
	must(t, err)
	return ps
}
