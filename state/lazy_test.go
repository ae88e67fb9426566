package state

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"
)

// textLazy is a Lazy value whose bytes are its text; made counts how
// often they were made.
type textLazy struct {
	text string
	made *int
	err  error
}

func (v *textLazy) AppendBytes(dst []byte) ([]byte, error) {
	*v.made++
	if v.err != nil {
		return nil, v.err
	}
	return append(dst, v.text...), nil
}

func (v *textLazy) Size() int { return len(v.text) }

// TestLazyMatchesModel runs the model of TestCachingMatchesModel with
// half of the puts Lazy, and WriteCached between: the store answers as
// with plain puts, whatever the cache size (0: the bytes go down at once).
func TestLazyMatchesModel(t *testing.T) {
	for _, cache := range []int64{0, 100, 1000, 1 << 20} {
		t.Run(fmt.Sprint(cache), func(t *testing.T) {
			db := memDB(t)
			st, err := db.Store(testID, WithCache(cache))
			must(t, err)
			rng, model, made := rand.New(rand.NewSource(cache+7)), map[string]string{}, 0
			for i := range 2000 {
				k := fmt.Sprintf("k%02d", rng.Intn(40))
				switch op := rng.Intn(12); {
				case op < 3:
					must(t, st.Put([]byte(k), []byte(fmt.Sprint(i))))
					model[k] = fmt.Sprint(i)
				case op < 6:
					must(t, PutLazy(st, []byte(k), &textLazy{text: fmt.Sprint("lazy", i), made: &made}))
					model[k] = fmt.Sprint("lazy", i)
				case op < 7:
					must(t, st.Put([]byte(k), nil))
					delete(model, k)
				case op < 8:
					checkGet(t, st, model, k)
				case op < 9:
					checkGetLazy(t, st, model, k)
				case op < 10:
					checkRange(t, st, model, fmt.Sprintf("k%02d", rng.Intn(40)), fmt.Sprintf("k%02d", rng.Intn(40)))
				case op < 11:
					must(t, WriteCached(st))
				default:
					must(t, st.Flush())
				}
			}
			must(t, st.Flush())
			checkRange(t, st, model, "", "")
			if _, keys, _ := db.ApproxSize(testID); keys != int64(len(model)) {
				t.Fatalf("key count %d, want %d", keys, len(model))
			}
		})
	}
}

func checkGetLazy(t *testing.T, st Store, model map[string]string, k string) {
	t.Helper()
	l, b, err := GetLazy(st, []byte(k))
	must(t, err)
	if l != nil {
		b = []byte(l.(*textLazy).text)
	}
	want, ok := model[k]
	if (b != nil) != ok || string(b) != want {
		t.Fatalf("get lazy %s = %q, want %q (present %v)", k, b, want, ok)
	}
}

// TestLazyMadeOncePerWriteDown: 1000 Lazy updates of one key make its
// bytes once, at the Flush (one changelog record); GetLazy hands back
// the value last put, before and after the flush.
func TestLazyMadeOncePerWriteDown(t *testing.T) {
	var log countingLog
	st, err := memDB(t).Store(testID, WithChangelog(&log))
	must(t, err)
	made := 0
	var last *textLazy
	for i := range 1000 {
		last = &textLazy{text: fmt.Sprint(i), made: &made}
		must(t, PutLazy(st, []byte("k"), last))
		if l, _, err := GetLazy(st, []byte("k")); err != nil || l != last {
			t.Fatalf("update %d: GetLazy = %v, %v; want the value put", i, l, err)
		}
	}
	must(t, st.Flush())
	if made != 1 || log.n != 1 {
		t.Fatalf("bytes made %d times, %d changelog records; want 1 and 1", made, log.n)
	}
	if l, _, _ := GetLazy(st, []byte("k")); l != last {
		t.Fatalf("after the flush GetLazy = %v, want the value put", l)
	}
	must(t, st.Flush())
	if made != 1 || log.n != 1 {
		t.Fatalf("a clean entry was made again: %d times, %d records", made, log.n)
	}
}

// TestLazyError: a value whose bytes cannot be made fails the write-down
// that needs them, and a Get of it, with its error.
func TestLazyError(t *testing.T) {
	st, err := memDB(t).Store(testID)
	must(t, err)
	made, bad := 0, errors.New("cannot encode")
	must(t, PutLazy(st, []byte("k"), &textLazy{made: &made, err: bad}))
	if _, err := st.Get([]byte("k")); !errors.Is(err, bad) {
		t.Fatalf("Get: %v, want %v", err, bad)
	}
	if err := st.Range(nil, nil, func(k, v []byte) bool { return true }); !errors.Is(err, bad) {
		t.Fatalf("Range: %v, want %v", err, bad)
	}
	if err := st.Flush(); !errors.Is(err, bad) {
		t.Fatalf("Flush: %v, want %v", err, bad)
	}
}

// TestWindowStoreLazy: a window's Lazy value comes back from GetLazy
// until written down, as bytes from Fetch; a put to an expired window is
// dropped as Put drops it; a duplicates store takes the bytes at once.
func TestWindowStoreLazy(t *testing.T) {
	db := memDB(t)
	w, err := db.WindowStore(testID)
	must(t, err)
	made := 0
	v := &textLazy{text: "ten", made: &made}
	must(t, w.PutLazy([]byte("k"), 10, v))
	if l, _, err := w.GetLazy([]byte("k"), 10); err != nil || l != v {
		t.Fatalf("GetLazy = %v, %v; want the value put", l, err)
	}
	var got []string
	must(t, w.Fetch([]byte("k"), 0, 100, func(start int64, b []byte) bool {
		got = append(got, fmt.Sprint(start, "=", string(b)))
		return true
	}))
	if fmt.Sprint(got) != "[10=ten]" || made != 1 || w.MaxStart() != 10 {
		t.Fatalf("Fetch %v (made %d, max start %d), want [10=ten] made once, max start 10", got, made, w.MaxStart())
	}
	must(t, w.Purge(20))
	must(t, w.PutLazy([]byte("k"), 15, &textLazy{text: "late", made: &made}))
	if l, b, _ := w.GetLazy([]byte("k"), 15); l != nil || b != nil || w.Dropped() != 1 {
		t.Fatalf("expired window: GetLazy = %v, %q, dropped %d; want nothing and 1 dropped", l, b, w.Dropped())
	}
	dup, err := db.WindowStore(StoreID{App: "app", Name: "dup"}, RetainDuplicates())
	must(t, err)
	must(t, dup.PutLazy([]byte("k"), 30, &textLazy{text: "d", made: &made}))
	if made != 3 {
		t.Fatalf("a duplicates store's Lazy value: bytes made %d times in all, want 3", made)
	}
}
