package state

import (
	"cmp"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestWindowStampsMatchModel: on a store empty at open, the stamps answer
// Gets of windows never put, and every answer (stamped or read) matches a
// model, with few buckets (keys share them; the table grows), starts
// mostly rising but some going back, deletes, purges, flushes and a
// store reopened over what the first wrote (stamps off there).
func TestWindowStampsMatchModel(t *testing.T) {
	for _, cache := range []int64{0, 200, 1 << 20} {
		t.Run(fmt.Sprint(cache), func(t *testing.T) {
			db := memDB(t)
			st, err := db.Store(testID, WithCache(cache))
			must(t, err)
			w := NewWindowStore(st)
			w.firstBuckets = 4
			rng := rand.New(rand.NewSource(cache + 3))
			type wk struct {
				k string
				s int64
			}
			model := map[wk]string{}
			made, skipped := 0, 0
			var expired int64
			check := func(w *WindowStore, k string, start int64) {
				t.Helper()
				want := model[wk{k, start}]
				l, b, err := w.GetLazy([]byte(k), start)
				must(t, err)
				if l != nil {
					b, err = l.AppendBytes(nil)
					must(t, err)
				}
				if string(b) != want {
					t.Fatalf("%s@%d = %q, want %q", k, start, b, want)
				}
				v, err := w.Get([]byte(k), start)
				must(t, err)
				if string(v) != want {
					t.Fatalf("Get %s@%d = %q, want %q", k, start, v, want)
				}
			}
			for i := range 4000 {
				k := fmt.Sprintf("k%02d", rng.Intn(60))
				start := int64(i/10*100) + 100*int64(rng.Intn(3))
				if rng.Intn(8) == 0 {
					start = max(0, start-100*int64(rng.Intn(20))) // out of order
				}
				if w.newer != nil && w.newer.never([]byte(k), start) {
					skipped++
				}
				check(w, k, start)
				mk := wk{k, start}
				switch op := rng.Intn(10); {
				case op < 6:
					v := fmt.Sprintf("v%d", i)
					must(t, w.PutLazy([]byte(k), start, &textLazy{text: v, made: &made}))
					if start >= expired {
						model[mk] = v
					}
				case op < 8:
					v := fmt.Sprintf("b%d", i)
					must(t, w.Put([]byte(k), start, []byte(v)))
					if start >= expired {
						model[mk] = v
					}
				case op < 9:
					must(t, w.Put([]byte(k), start, nil))
					delete(model, mk)
				default:
					if rng.Intn(20) == 0 {
						expired = max(expired, int64(i/10*100)-2000)
						must(t, w.Purge(expired))
						for mk := range model {
							if mk.s < expired {
								delete(model, mk)
							}
						}
					} else {
						must(t, w.Flush())
					}
				}
				check(w, k, start)
			}
			if w.newer == nil || len(w.newer.buckets) <= 4 {
				t.Fatalf("stamps %v: want on, grown past 4 buckets", w.newer)
			}
			if skipped < 1000 {
				t.Errorf("the stamps answered %d of 4000 reads, want most of the new windows", skipped)
			}
			must(t, w.Flush())
			must(t, st.Close())
			st, err = db.Store(testID, WithCache(cache))
			must(t, err)
			again := NewWindowStore(st)
			for mk := range model {
				check(again, mk.k, mk.s)
			}
			check(again, "k99", 1<<40)
			if again.newer != nil {
				t.Error("a store opened over stored windows uses stamps")
			}
		})
	}
}

// TestWindowStampsSkipLookups: new windows of a store empty at open are
// neither read nor looked up for the key count when written down, even
// where no key filter can rule them out; the metered layer still counts
// the reads, and the key count is right.
func TestWindowStampsSkipLookups(t *testing.T) {
	for _, cache := range []int64{0, 1 << 20} {
		m := &Metrics{}
		st, err := memDB(t).Store(testID, WithCache(cache), WithMetrics(m))
		must(t, err)
		w := NewWindowStore(st)
		ps := bottom(t, st)
		ps.part.filter = nil // as for a partition past filterMaxKeys
		made, unanswered := 0, 0
		for i := range 1000 {
			k := []byte(fmt.Sprintf("user%d", i%100))
			if w.stamps() == nil || !w.newer.never(k, int64(i/100)*60_000) {
				unanswered++ // keys sharing a bucket
			}
			l, b, err := w.GetLazy(k, int64(i/100)*60_000)
			must(t, err)
			if l != nil || b != nil {
				t.Fatalf("window %d of a new store found", i)
			}
			must(t, w.PutLazy(k, int64(i/100)*60_000, &textLazy{text: "1", made: &made}))
		}
		must(t, w.Flush())
		if unanswered > 100 {
			t.Errorf("cache %d: the stamps left %d of 1000 new windows to the store", cache, unanswered)
		}
		// Uncached, a window the stamps did not answer is looked up when
		// put; cached, the Get's miss told the cache.
		want := int64(0)
		if cache == 0 {
			want = int64(unanswered)
		}
		if ps.lookups != want {
			t.Errorf("cache %d: 1000 new windows made %d existence lookups, want %d", cache, ps.lookups, want)
		}
		if n := ps.part.keys.Load(); n != 1000 {
			t.Errorf("cache %d: key count %d, want 1000", cache, n)
		}
		if s := m.Snapshot(); s.Gets != 1000 || s.GetHits != 0 || s.Puts != 1000 {
			t.Errorf("cache %d: metrics %+v, want 1000 gets, no hits, 1000 puts", cache, s)
		}
	}
}

// TestSessionStampsMatchModel: FindSessions on a store empty at open,
// where the stamps rule out keys with no session ending late enough,
// answers as a model of the sessions put and removed, across flushes.
func TestSessionStampsMatchModel(t *testing.T) {
	for _, cache := range []int64{0, 1 << 20} {
		st, err := memDB(t).Store(testID, WithCache(cache))
		must(t, err)
		s := NewSessionStore(st)
		type ses struct {
			k          string
			start, end int64
		}
		model := map[ses]bool{}
		rng := rand.New(rand.NewSource(cache + 11))
		ruled := 0
		for i := range 3000 {
			k := fmt.Sprintf("k%d", rng.Intn(200))
			ts := int64(i * 10)
			if rng.Intn(6) == 0 {
				ts = max(0, ts-int64(rng.Intn(500)))
			}
			from, to := ts-50, ts+50
			if s.newer != nil && s.newer.never([]byte(k), max(from, 0)) {
				ruled++
			}
			got := findSessions(t, s, k, from, to)
			var want []ses
			for m := range model {
				if m.k == k && m.end >= from && m.start <= to {
					want = append(want, m)
				}
			}
			slices.SortFunc(want, func(a, b ses) int { return cmp.Or(cmp.Compare(a.end, b.end), cmp.Compare(a.start, b.start)) })
			var ws []string
			for _, m := range want {
				ws = append(ws, fmt.Sprintf("[%d,%d]=v", m.start, m.end))
			}
			if w := strings.Join(ws, " "); got != w {
				t.Fatalf("cache %d, record %d: find %s [%d, %d] = %q, want %q", cache, i, k, from, to, got, w)
			}
			start, end := ts, ts
			for _, m := range want { // merge as a session window does
				start, end = min(start, m.start), max(end, m.end)
				must(t, s.Remove([]byte(k), m.start, m.end))
				delete(model, m)
			}
			must(t, s.Put([]byte(k), start, end, []byte("v")))
			model[ses{k, start, end}] = true
			if i%100 == 99 {
				must(t, s.Flush())
			}
		}
		if s.newer == nil || ruled < 500 {
			t.Errorf("cache %d: the stamps ruled out %d of 3000 finds (stamps %v), want most new sessions", cache, ruled, s.newer != nil)
		}
	}
}

// TestSessionStampsReadNothing: a record that starts a session of a key
// with no recent session reads nothing below the session store (no
// Range reaches the cache, which would build its ordered index for it);
// the metered layer still counts the find.
func TestSessionStampsReadNothing(t *testing.T) {
	m := &Metrics{}
	st, err := memDB(t).Store(testID, WithCache(1<<20), WithMetrics(m))
	must(t, err)
	s := NewSessionStore(st)
	for i := range 100 {
		k := []byte(fmt.Sprintf("k%d", i))
		must(t, s.FindSessions(k, int64(i)*1000-10, int64(i)*1000+10, func(int64, int64, []byte) bool {
			t.Fatal("a session found in an empty store")
			return false
		}))
		must(t, s.Put(k, int64(i)*1000, int64(i)*1000, []byte("v")))
	}
	if c := st.(*meteredStore).inner.(*cachingStore); c.ordered != nil && !invariants { // the invariants check ranges
		t.Error("a find of a new key's sessions reached the cache's Range")
	}
	if r := m.Snapshot().Ranges; r != 100 {
		t.Errorf("metrics count %d ranges, want 100", r)
	}
	if got := findSessions(t, s, "k5", 0, 1<<40); got != "[5000,5000]=v" {
		t.Errorf("k5's sessions: %q", got)
	}
}
