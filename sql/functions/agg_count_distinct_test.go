package functions

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestCountDistinctEstimateMemo: the sketch's remembered estimate is the
// full count's after every Add, sparse (through its expansion) and dense,
// for one group, for more groups taking turns than the cache has slots,
// for a state decoded into a reused buffer (same address, other
// registers), and for tasks sharing the aggregator (go test -race).
func TestCountDistinctEstimateMemo(t *testing.T) {
	cd, err := NewAggregates().Resolve("COUNT_DISTINCT", ts(tBig), nil)
	if err != nil {
		t.Fatal(err)
	}
	dense := func(seed uint64) any {
		acc := cd.Init()
		r := rand.New(rand.NewPCG(seed, 1))
		for range 8000 {
			acc, _ = cd.Add(acc, []any{r.Int64()})
		}
		if _, regs := (countDistinctAgg{}).parts(acc); !hllDense(regs) {
			t.Fatalf("8000 values left the registers sparse")
		}
		return acc
	}
	check := func(t *testing.T, acc any, what string) {
		t.Helper()
		exact, regs := (countDistinctAgg{}).parts(acc)
		got, err := cd.Result(acc)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(len(exact) / 8)
		if regs != nil {
			want = hllEstimate(regs)
		}
		if got != want {
			t.Fatalf("%s: estimate %v, counting the registers gives %d", what, got, want)
		}
	}
	t.Run("sparse to dense", func(t *testing.T) {
		acc := cd.Init()
		r := rand.New(rand.NewPCG(11, 11))
		for range 9000 {
			acc, _ = cd.Add(acc, []any{r.Int64()})
			check(t, acc, "after an add")
		}
	})
	t.Run("one group", func(t *testing.T) {
		acc := dense(1)
		r := rand.New(rand.NewPCG(2, 2))
		for i := range 20000 {
			v := r.Int64()
			if i%3 == 0 {
				v = int64(i % 50) // repeated values change no register
			}
			acc, _ = cd.Add(acc, []any{v})
			check(t, acc, "after an add")
		}
	})
	t.Run("groups taking turns", func(t *testing.T) {
		var accs []any
		for g := range hllMemos + 3 {
			accs = append(accs, dense(uint64(20+g)))
		}
		r := rand.New(rand.NewPCG(6, 6))
		for i := range 6000 {
			g := r.IntN(len(accs))
			accs[g], _ = cd.Add(accs[g], []any{r.Int64()})
			check(t, accs[g], "after an add")
			check(t, accs[(g+1+i%5)%len(accs)], "another group")
		}
	})
	t.Run("reused buffer", func(t *testing.T) {
		a, b := dense(7), dense(8)
		_, ra := (countDistinctAgg{}).parts(a)
		_, rb := (countDistinctAgg{}).parts(b)
		if bytes.Equal(ra, rb) {
			t.Fatal("two sketches of other values have the same registers")
		}
		buf := bytes.Clone(ra)
		s := (countDistinctAgg{}).sketch(buf)
		check(t, s, "a decoded state")
		copy(buf, rb) // the next state decoded into the same bytes
		check(t, s, "the next state in the same buffer")
	})
	t.Run("shared by tasks", func(t *testing.T) {
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				acc := dense(uint64(10 + g))
				r := rand.New(rand.NewPCG(uint64(g), 9))
				for range 2000 {
					acc, _ = cd.Add(acc, []any{r.Int64()})
					check(t, acc, "a task's group")
				}
			})
		}
		wg.Wait()
	})
}

func BenchmarkCountDistinctDenseUpdate(b *testing.B) {
	cd, err := NewAggregates().Resolve("COUNT_DISTINCT", ts(tBig), nil)
	if err != nil {
		b.Fatal(err)
	}
	acc := cd.Init()
	r := rand.New(rand.NewPCG(1, 1))
	for range 100_000 {
		acc, _ = cd.Add(acc, []any{r.Int64()})
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		acc, _ = cd.Add(acc, []any{int64(i % 5000)})
		if _, err := cd.Result(acc); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
