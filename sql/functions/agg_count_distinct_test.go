package functions

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
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

// TestCountDistinctAddOwnedMatchesAdd: AddOwned, writing the caller's own
// state, gives after every value the state Add gives (the same exact set
// or registers, byte for byte, so the same stored bytes) and the same
// estimate, through the exact set, its change to a sparse sketch, the
// expansion to dense registers and many raises of those; the states Add
// returned along the way (its copies, as the store, changelog and rows
// would hold them) are never written. Groups take turns in the estimate
// cache, and two tasks share the aggregator (go test -race).
func TestCountDistinctAddOwnedMatchesAdd(t *testing.T) {
	cd, err := NewAggregates().Resolve("COUNT_DISTINCT", ts(tBig), nil)
	if err != nil {
		t.Fatal(err)
	}
	own, ok := OwnedAdderOf(cd)
	if !ok {
		t.Fatal("COUNT_DISTINCT(BIGINT) has no OwnedAdder")
	}
	run := func(t *testing.T, seed uint64) {
		const groups = 3
		var copied, owned [groups]any
		for g := range groups {
			copied[g], owned[g] = cd.Init(), cd.Init()
		}
		type handed struct {
			acc  any
			snap []byte
		}
		var kept []handed
		r := rand.New(rand.NewPCG(seed, 3))
		for i := range 30000 {
			g := r.IntN(groups)
			v := r.Int64N(int64(2000 + 6000*g)) // repeats, and dense registers for the larger groups
			next, _ := cd.Add(copied[g], []any{v})
			owned[g] = own.AddOwned(owned[g], []any{v})
			copied[g] = next
			ce, cr := (countDistinctAgg{}).parts(copied[g])
			oe, or := (countDistinctAgg{}).parts(owned[g])
			if !bytes.Equal(ce, oe) || !bytes.Equal(cr, or) || (cr == nil) != (or == nil) {
				t.Fatalf("value %d of group %d: owned state (%d exact, %d register bytes) differs from Add's (%d, %d)",
					i, g, len(oe), len(or), len(ce), len(cr))
			}
			want, _ := cd.Result(copied[g])
			got, _ := cd.Result(owned[g])
			if got != want {
				t.Fatalf("value %d of group %d: estimate %v owned, %v copied", i, g, got, want)
			}
			if full := hllEstimateOf(copied[g]); i%7 == 0 && got != full {
				t.Fatalf("value %d of group %d: estimate %v, counting gives %d", i, g, got, full)
			}
			if i%500 == 0 {
				kept = append(kept, handed{copied[g], slices.Clone(append(ce, cr...))})
			}
		}
		for _, k := range kept {
			e, rg := (countDistinctAgg{}).parts(k.acc)
			if !bytes.Equal(append(slices.Clone(e), rg...), k.snap) {
				t.Fatal("a state Add returned was written afterwards")
			}
		}
		if _, regs := (countDistinctAgg{}).parts(owned[groups-1]); !hllDense(regs) {
			t.Fatal("the largest group never reached dense registers")
		}
	}
	var wg sync.WaitGroup
	for task := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(fmt.Sprint("task ", task), func(t *testing.T) { run(t, uint64(40+task)) })
		}()
	}
	wg.Wait()
}

// hllEstimateOf is the estimate of acc counted from scratch.
func hllEstimateOf(acc any) int64 {
	exact, regs := (countDistinctAgg{}).parts(acc)
	if regs == nil {
		return int64(len(exact) / 8)
	}
	return hllEstimate(regs)
}

// TestCountDistinctAddOwnedAllocations pins the allocations of an update
// of an owned dense sketch that raises a register: the new state's
// struct and its values, and the estimate's memo, never the 16 KiB of
// registers Add copies.
func TestCountDistinctAddOwnedAllocations(t *testing.T) {
	cd, err := NewAggregates().Resolve("COUNT_DISTINCT", ts(tBig), nil)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := OwnedAdderOf(cd)
	acc := cd.Init()
	r := rand.New(rand.NewPCG(5, 5))
	for range 8000 {
		acc = own.AddOwned(acc, []any{r.Int64()})
	}
	if _, regs := (countDistinctAgg{}).parts(acc); !hllDense(regs) {
		t.Fatal("8000 values left the registers sparse")
	}
	cd.Result(acc)
	// Values whose register is zero: each update raises one.
	var vals []any
	_, regs := (countDistinctAgg{}).parts(acc)
	for len(vals) < 300 {
		v := r.Int64()
		if i, _ := hllSlot(valueHash(v)); regs[i] == 0 && !slices.ContainsFunc(vals, func(w any) bool {
			j, _ := hllSlot(valueHash(w))
			return j == i
		}) {
			vals = append(vals, v)
		}
	}
	n := 0
	update := func() {
		acc = own.AddOwned(acc, []any{vals[n%len(vals)]})
		n++
		cd.Result(acc)
	}
	allocs := testing.AllocsPerRun(200, update)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		update()
	}
	runtime.ReadMemStats(&after)
	perUpdate := (after.TotalAlloc - before.TotalAlloc) / 100
	t.Logf("%.1f allocations, %d bytes per raising update", allocs, perUpdate)
	if allocs > maxOwnedRaiseAllocs {
		t.Errorf("%.1f allocations per update raising a register, want at most %d", allocs, maxOwnedRaiseAllocs)
	}
	if perUpdate >= hllRegisters/8 {
		t.Errorf("%d bytes allocated per update raising a register, want under %d (a copy of the registers is %d)",
			perUpdate, hllRegisters/8, hllRegisters)
	}
}

// maxOwnedRaiseAllocs: the argument slice, the new state (its struct
// and values in one allocation, the registers' slice boxed into them),
// the estimate's memo and the boxed estimate. Add allocates the same
// plus the 16 KiB copy of the registers. 8 before the value's hash
// stopped allocating and the state's struct and values became one.
const maxOwnedRaiseAllocs = 5
