package physical

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// modelRow is one row the reference model of a window store holds.
type modelRow struct {
	key  string
	time int64
	seq  int
}

// TestWindowCacheAgreesWithTheStore puts rows (mostly in time order,
// some late, a few keys) into a windowCache with a small budget and a
// plain list standing for the store, and checks every fetch the cache
// answers returns exactly the store's rows, by time then put order; with
// room enough, near-stream-time fetches are answered (the cache is of
// use), and a small budget is kept.
func TestWindowCacheAgreesWithTheStore(t *testing.T) {
	for _, budget := range []int{1 << 30, 4 << 10} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(budget)))
			c := newWindowCache(2000, 3000, budget)
			var store []modelRow
			var answered, near int
			clock := int64(0)
			for i := range 5000 {
				clock += rng.Int64N(40)
				ts := clock
				if rng.IntN(10) == 0 {
					ts = max(0, clock-rng.Int64N(30_000)) // late
				}
				key := fmt.Sprintf("k%d", rng.IntN(7))
				store = append(store, modelRow{key: key, time: ts, seq: i})
				c.put([]byte(key), []any{key, int64(i)}, ts)

				from := clock - rng.Int64N(6000)
				if rng.IntN(5) == 0 {
					from = clock - rng.Int64N(60_000)
				}
				to := from + 5000
				got, ok := c.fetch([]byte(key), from, to)
				if from >= clock-6000 {
					near++
				}
				if !ok {
					continue
				}
				answered++
				if want := modelFetch(store, key, from, to); !slices.Equal(seqs(got), want) {
					t.Fatalf("put %d: fetch %s [%d, %d]: cache %v, store %v", i, key, from, to, seqs(got), want)
				}
			}
			if budget > 1<<20 && answered < near/2 {
				t.Fatalf("the cache answered %d of 5000 fetches (%d near stream time)", answered, near)
			}
			if budget < 1<<20 && c.bytes > budget {
				t.Fatalf("cache holds %d bytes, budget %d", c.bytes, budget)
			}
		})
	}
}

// TestWindowCacheRestart: after restart only rows from the returned time
// on are cached, and fetches from before it go to the store.
func TestWindowCacheRestart(t *testing.T) {
	c := newWindowCache(1000, 1000, 1<<20)
	from := c.restart(50_000)
	if from != 50_000-c.span {
		t.Fatalf("restart at 50000 refills from %d, want %d", from, 50_000-c.span)
	}
	c.put([]byte("k"), []any{"a"}, from-1) // older: not cached
	c.put([]byte("k"), []any{"b"}, from)
	if _, ok := c.fetch([]byte("k"), from-1, from); ok {
		t.Fatalf("fetch from before the refill answered by the cache")
	}
	got, ok := c.fetch([]byte("k"), from, from+10)
	if !ok || len(got) != 1 || got[0].values[0] != "b" {
		t.Fatalf("fetch from the refill: %v, %v; want the row b", got, ok)
	}
}

func modelFetch(store []modelRow, key string, from, to int64) []int {
	var rows []modelRow
	for _, r := range store {
		if r.key == key && r.time >= max(from, 0) && r.time <= to {
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b modelRow) int { return int(a.time - b.time) })
	out := make([]int, len(rows))
	for i, r := range rows {
		out[i] = r.seq
	}
	return out
}

func seqs(ms []streamMatch) []int {
	out := make([]int, len(ms))
	for i, m := range ms {
		out[i] = int(m.values[1].(int64))
	}
	return out
}

// TestWindowCacheFollowsALaggingPeer: while the other side's input runs
// minutes behind this one's, the rows its lookups need (near its own
// time) stay cached; once it catches up they are trimmed.
func TestWindowCacheFollowsALaggingPeer(t *testing.T) {
	c := newWindowCache(1000, 1000, 1<<20)
	peer := int64(0)
	end := (peerHold - 2) * c.span // behind by less than peerHold spans
	for ts := int64(0); ts <= end; ts += 100 {
		c.follow(peer)
		c.put([]byte("k"), []any{"v", ts}, ts)
	}
	got, ok := c.fetch([]byte("k"), peer-1000, peer+1000)
	if !ok || len(got) != 11 {
		t.Fatalf("lookup at the lagging peer's time 0: %d rows, answered %v; want 11 from the cache", len(got), ok)
	}
	c.follow(end)
	c.put([]byte("k"), []any{"v", end + 100}, end+100)
	if _, ok := c.fetch([]byte("k"), 0, 1000); ok {
		t.Fatalf("rows the caught-up peer can no longer ask for still answered from the cache")
	}
	if want := end + 100 - 2*c.span; c.low < want {
		t.Fatalf("low %d after the peer caught up, want at least %d", c.low, want)
	}
}

// TestWindowCacheIdlePeerHoldsBackLittle: an other side with no rows
// (its time -1) holds the horizon back peerHold spans at most, so the
// cache does not fill to its budget with rows nobody reads.
func TestWindowCacheIdlePeerHoldsBackLittle(t *testing.T) {
	c := newWindowCache(1000, 1000, 1<<30)
	c.follow(-1)
	last := int64(0)
	for ts := int64(0); ts <= 50*c.span; ts += 500 {
		c.put([]byte("k"), []any{"v"}, ts)
		last = ts
	}
	if want := last - (peerHold+1)*c.span - c.width; c.low < want {
		t.Fatalf("low %d with an idle other side, want at least %d (newest %d)", c.low, want, last)
	}
	if _, ok := c.fetch([]byte("k"), last-peerHold*c.span+c.span, last); !ok {
		t.Fatalf("a fetch within the held-back horizon went to the store")
	}
}

// TestWindowCachesShareOneMap runs two sides' caches over one map
// (share, after one side already holds rows), each row fetching the other
// side's rows under its key and then put (as the join does: the second
// lookup is the remembered entry's), and checks every answered fetch
// against that side's store; trims of one side leave the other's rows.
func TestWindowCachesShareOneMap(t *testing.T) {
	for _, budget := range []int{1 << 30, 4 << 10} {
		t.Run(fmt.Sprintf("budget=%d", budget), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(budget)))
			caches := [2]*windowCache{newWindowCache(2000, 3000, budget), newWindowCache(2000, 3000, budget)}
			var stores [2][]modelRow
			clock := int64(0)
			put := func(side, i int, key string, ts int64) {
				stores[side] = append(stores[side], modelRow{key: key, time: ts, seq: i})
				caches[side].put([]byte(key), []any{key, int64(i)}, ts)
			}
			put(1, -1, "k1", 0)
			caches[0].share(caches[1])
			answered := 0
			for i := range 6000 {
				side := rng.IntN(2)
				clock += rng.Int64N(40)
				ts := clock
				if rng.IntN(10) == 0 {
					ts = max(0, clock-rng.Int64N(30_000)) // late
				}
				key := fmt.Sprintf("k%d", rng.IntN(9))
				from, to := ts-2000, ts+3000
				if got, ok := caches[1-side].fetch([]byte(key), from, to); ok {
					answered++
					if want := modelFetch(stores[1-side], key, from, to); !slices.Equal(seqs(got), want) {
						t.Fatalf("row %d: side %d fetch %s [%d, %d]: cache %v, store %v", i, 1-side, key, from, to, seqs(got), want)
					}
				}
				put(side, i, key, ts)
			}
			if budget > 1<<20 && answered < 4000 {
				t.Fatalf("the caches answered %d of 6000 fetches", answered)
			}
			for side, c := range caches {
				if budget < 1<<20 && c.bytes > budget {
					t.Fatalf("side %d holds %d bytes, budget %d", side, c.bytes, budget)
				}
			}
			if caches[0].m != caches[1].m || len(caches[0].m.byKey) > 9 {
				t.Fatalf("the caches do not share one map of at most 9 keys")
			}
		})
	}
}
