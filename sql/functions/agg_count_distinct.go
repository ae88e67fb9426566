package functions

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/sqlstream/sqlstream/sql/types"
)

// COUNT_DISTINCT counts exactly while a group has few distinct values and
// switches to a HyperLogLog sketch, as ksqlDB's (2^14 registers, about
// 0.8% standard error), when it has many:
//
//	EXACT    sorted 64-bit hashes of the values seen   (exact phase)
//	   │ (8 bytes each, big-endian)
//	   │ more than distinctExactLimit
//	   ▼
//	REGISTERS sparse: 3 bytes per register set          (sketch phase)
//	   │ (big-endian uint16 index, rank), by index
//	   │ more than hllSparseLimit registers set
//	   ▼
//	REGISTERS dense: 2^14 bytes, the max rank per register
//
// State: STRUCT<HASHES ARRAY<BIGINT>, REGISTERS BYTES, EXACT BYTES>, one
// of EXACT and REGISTERS set; HASHES is the exact set of a state stored
// before EXACT, read and never written (an array of numbers costs far more
// to encode and decode on every update than bytes). The two forms of REGISTERS are told apart by length (2^14 is no
// multiple of 3). The state is stored on every update, so the sparse form
// keeps it as small as the set while the set is small; the estimate is a
// function of the registers alone, the same from either form.
const (
	distinctExactLimit = 1024
	hllPrecision       = 14
	hllRegisters       = 1 << hllPrecision
	hllSparseLimit     = hllRegisters / 4 // 12 KiB sparse, then 16 KiB dense
)

func countDistinctDef() AggregateDef {
	return AggregateDef{
		Name: "COUNT_DISTINCT",
		Description: "Returns the number of distinct non-NULL values of the column. Exact up to 1024 distinct values; " +
			"beyond, a HyperLogLog estimate with a typical accuracy (standard error) of less than 1%.",
		Overloads: []AggregateOverload{{
			Sig: "COUNT_DISTINCT(T val) BIGINT",
			New: func([]*types.Type, []any) (Aggregator, error) { return countDistinctAgg{est: &hllCache{}}, nil },
		}},
	}
}

// countDistinctAgg is COUNT_DISTINCT; est, when set, remembers the
// estimates of the last registers seen (hllCache).
type countDistinctAgg struct{ est *hllCache }

var _ Merger = countDistinctAgg{}

var countDistinctState = types.StructOf(
	types.Field{Name: "HASHES", Type: types.ArrayOf(types.BigintType)},
	types.Field{Name: "REGISTERS", Type: types.BytesType},
	types.Field{Name: "EXACT", Type: types.BytesType})

func (countDistinctAgg) StateType() *types.Type  { return countDistinctState }
func (countDistinctAgg) ReturnType() *types.Type { return types.BigintType }
func (c countDistinctAgg) Init() any             { return c.exact([]byte{}) }

func (countDistinctAgg) exact(hashes []byte) *types.StructValue {
	return newDistinctState(2, hashes)
}

func (countDistinctAgg) sketch(regs []byte) *types.StructValue {
	return newDistinctState(1, regs)
}

// distinctState is a state's struct and its values in one allocation.
type distinctState struct {
	s    types.StructValue
	vals [3]any
}

// newDistinctState is a state with b in field i (1 REGISTERS, 2 EXACT).
func newDistinctState(i int, b []byte) *types.StructValue {
	d := &distinctState{}
	d.vals[i] = b
	d.s = types.StructValue{Type: countDistinctState, Values: d.vals[:]}
	return &d.s
}

// parts returns the exact hashes (8 bytes each, big-endian, ascending as
// int64) or the registers of an accumulator. A state stored before EXACT
// existed has its hashes in HASHES, a sorted ARRAY<BIGINT>.
func (countDistinctAgg) parts(acc any) ([]byte, []byte) {
	s, ok := acc.(*types.StructValue)
	if !ok || s == nil {
		return nil, nil
	}
	regs, _ := s.Values[1].([]byte)
	if len(s.Values) > 2 {
		if exact, ok := s.Values[2].([]byte); ok {
			return exact, regs
		}
	}
	legacy, _ := s.Values[0].([]any)
	exact := make([]byte, 0, 8*len(legacy))
	for _, h := range legacy {
		exact = binary.BigEndian.AppendUint64(exact, uint64(h.(int64)))
	}
	return exact, regs
}

// exactHash is the i-th hash of an exact set.
func exactHash(exact []byte, i int) int64 { return int64(binary.BigEndian.Uint64(exact[8*i:])) }

func (c countDistinctAgg) Add(acc any, args []any) (any, error) {
	if args[0] == nil {
		return acc, nil
	}
	h := valueHash(args[0])
	exact, regs := c.parts(acc)
	if regs != nil {
		if next, changed := hllAdd(regs, h); changed {
			c.est.raised(regs, next, h)
			return c.sketch(next), nil
		}
		return acc, nil
	}
	i, found := sort.Find(len(exact)/8, func(i int) int { return compareInt64(h, exactHash(exact, i)) })
	if found {
		return acc, nil
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(h))
	return c.settle(slices.Insert(slices.Clip(exact), 8*i, b[:]...)), nil
}

var _ OwnedAdder = countDistinctAgg{}

// AddOwned is Add writing the caller's own state (OwnedAdder): a value
// goes into the exact set's memory (appended in place while it has
// room), a raised register is written where it is, and only the change
// of form (exact to sketch, sparse to dense) makes new memory. The
// estimate's memo of the registers follows the write (hllCache.rewrite).
func (c countDistinctAgg) AddOwned(acc any, args []any) any {
	if args[0] == nil {
		return acc
	}
	h := valueHash(args[0])
	exact, regs := c.parts(acc)
	if regs != nil {
		next, changed := hllAddOwned(c.est, regs, h)
		if !changed {
			return acc
		}
		return c.sketch(next)
	}
	i, found := sort.Find(len(exact)/8, func(i int) int { return compareInt64(h, exactHash(exact, i)) })
	if found {
		return acc
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(h))
	return c.settle(slices.Insert(exact, 8*i, b[:]...))
}

// hllAddOwned is hllAdd writing regs itself when it can (a raised
// register, an entry inserted into sparse registers with room), and
// telling est of the write before it is made.
func hllAddOwned(est *hllCache, regs []byte, h int64) ([]byte, bool) {
	i, r := hllSlot(h)
	if hllDense(regs) {
		if r <= regs[i] {
			return regs, false
		}
		est.rewrite(regs, regs[i], r, func() []byte { regs[i] = r; return regs })
		return regs, true
	}
	at, found := hllFind(regs, i)
	switch {
	case found && regs[at+2] >= r:
		return regs, false
	case found:
		next := est.rewrite(regs, regs[at+2], r, func() []byte { regs[at+2] = r; return regs })
		return next, true
	case len(regs)/3 >= hllSparseLimit:
		dense := hllExpand(regs)
		dense[i] = r
		est.raised(regs, dense, h)
		return dense, true
	}
	next := est.rewrite(regs, 0, r, func() []byte { return slices.Insert(regs, at, byte(i>>8), byte(i), r) })
	return next, true
}

// settle turns an exact set that grew too large into a sketch.
func (c countDistinctAgg) settle(exact []byte) *types.StructValue {
	if len(exact)/8 <= distinctExactLimit {
		return c.exact(exact)
	}
	regs := make([]byte, hllRegisters)
	for i := range len(exact) / 8 {
		hllSet(regs, exactHash(exact, i))
	}
	return c.sketch(hllCompact(regs))
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (c countDistinctAgg) Merge(a, b any) (any, error) {
	h1, r1 := c.parts(a)
	h2, r2 := c.parts(b)
	if r1 == nil && r2 == nil {
		return c.settle(unionSorted(h1, h2)), nil
	}
	regs := make([]byte, hllRegisters)
	for _, r := range [][]byte{r1, r2} {
		hllEachSet(r, func(i int, v byte) { regs[i] = max(regs[i], v) })
	}
	for _, exact := range [][]byte{h1, h2} {
		for i := range len(exact) / 8 {
			hllSet(regs, exactHash(exact, i))
		}
	}
	return c.sketch(hllCompact(regs)), nil
}

// unionSorted merges two sorted exact sets.
func unionSorted(x, y []byte) []byte {
	out := make([]byte, 0, len(x)+len(y))
	for len(x) > 0 && len(y) > 0 {
		switch c := compareInt64(exactHash(x, 0), exactHash(y, 0)); {
		case c < 0:
			out, x = append(out, x[:8]...), x[8:]
		case c > 0:
			out, y = append(out, y[:8]...), y[8:]
		default:
			out, x, y = append(out, x[:8]...), x[8:], y[8:]
		}
	}
	return append(append(out, x...), y...)
}

func (c countDistinctAgg) Result(acc any) (any, error) {
	exact, regs := c.parts(acc)
	if regs == nil {
		return int64(len(exact) / 8), nil
	}
	return c.est.estimate(regs), nil
}

// hllSlot returns the register of hash h and the rank it observes: the
// position of the first 1 bit after the register bits.
func hllSlot(h int64) (int, byte) {
	u := uint64(h)
	rest := u<<hllPrecision | 1<<(hllPrecision-1)
	return int(u >> (64 - hllPrecision)), byte(bits.LeadingZeros64(rest) + 1)
}

// hllDense reports whether regs is the dense form.
func hllDense(regs []byte) bool { return len(regs) == hllRegisters }

// hllSet raises a dense register for hash h.
func hllSet(regs []byte, h int64) {
	i, r := hllSlot(h)
	regs[i] = max(regs[i], r)
}

// hllAdd returns the registers with hash h observed and whether they
// changed; regs itself is never written (it may be a stored state's), so
// a change is a copy (hllAddOwned writes the caller's own): of the dense registers, or of the sparse entries
// with one inserted or raised (dense once there are too many).
func hllAdd(regs []byte, h int64) ([]byte, bool) {
	i, r := hllSlot(h)
	if hllDense(regs) {
		if r <= regs[i] {
			return regs, false
		}
		regs = slices.Clone(regs)
		regs[i] = r
		return regs, true
	}
	at, found := hllFind(regs, i)
	switch {
	case found && regs[at+2] >= r:
		return regs, false
	case found:
		regs = slices.Clone(regs)
		regs[at+2] = r
		return regs, true
	case len(regs)/3 >= hllSparseLimit:
		dense := hllExpand(regs)
		dense[i] = r
		return dense, true
	}
	return slices.Insert(slices.Clip(regs), at, byte(i>>8), byte(i), r), true
}

// hllFind is the offset of register i's entry in sparse registers, or of
// where it goes.
func hllFind(regs []byte, i int) (int, bool) {
	n, found := sort.Find(len(regs)/3, func(k int) int { return i - hllIndex(regs, 3*k) })
	return 3 * n, found
}

func hllIndex(regs []byte, at int) int { return int(regs[at])<<8 | int(regs[at+1]) }

// hllEachSet calls fn with each register that is not zero.
func hllEachSet(regs []byte, fn func(i int, rank byte)) {
	if hllDense(regs) {
		for i, v := range regs {
			if v != 0 {
				fn(i, v)
			}
		}
		return
	}
	for at := 0; at+2 < len(regs); at += 3 {
		fn(hllIndex(regs, at), regs[at+2])
	}
}

// hllExpand returns the dense form of sparse registers.
func hllExpand(regs []byte) []byte {
	dense := make([]byte, hllRegisters)
	hllEachSet(regs, func(i int, v byte) { dense[i] = v })
	return dense
}

// hllCompact returns the sparse form of dense registers when few are set.
func hllCompact(dense []byte) []byte {
	set := 0
	for _, v := range dense {
		if v != 0 {
			set++
		}
	}
	if set > hllSparseLimit {
		return dense
	}
	sparse := make([]byte, 0, 3*set)
	for i, v := range dense {
		if v != 0 {
			sparse = append(sparse, byte(i>>8), byte(i), v)
		}
	}
	return sparse
}

// hllEstimate is the HyperLogLog estimate with linear counting for small
// cardinalities (64-bit hashes need no large-range correction). It sums
// the registers by rank (a histogram), so each term is exact and the sum
// does not depend on the form or order of the registers.
func hllEstimate(regs []byte) int64 {
	var hist hllHistogram
	hist.count(regs)
	return hist.estimate()
}

// hllHistogram counts registers by rank: any byte, so a damaged state
// cannot index past it.
type hllHistogram [256]uint16 // 2^14 registers fit

func (hist *hllHistogram) count(regs []byte) {
	if hllDense(regs) {
		for _, r := range regs {
			hist[r]++
		}
		return
	}
	for at := 2; at < len(regs); at += 3 {
		hist[regs[at]]++
	}
	hist[0] = uint16(hllRegisters - len(regs)/3)
}

func (hist *hllHistogram) estimate() int64 {
	m := float64(hllRegisters)
	sum := 0.0
	for r := len(hist) - 1; r >= 0; r-- {
		if hist[r] != 0 { // adding 0 changes no sum
			sum += math.Ldexp(float64(hist[r]), -r)
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if zeros := int(hist[0]); e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int64(math.Round(e))
}

// hllCache remembers the estimates of the last registers a
// COUNT_DISTINCT saw, with their histograms. A group's EMIT CHANGES update
// asks for the estimate on every record, and counting the registers (2^14
// dense, up to 4,096 sparse entries) was a quarter of Nexmark q15's CPU
// (one group a day, nine COUNT_DISTINCTs); most records change no
// register, so the estimate is one remembered, and a change of one
// register (raised, from Add) moves one histogram count. A memo keeps
// registers no one writes (a copy, or hllAdd's new ones) and is found by
// their content, never by identity (a decoded state's bytes may sit in a
// reused buffer): a hit
// costs comparisons, which fail within a few bytes for other groups'
// registers, not a count. hllMemos slots serve groups taking turns (q16:
// a few hot channels a day); past that, each miss replaces the oldest.
// Memos are immutable once stored, so the tasks of a query, which share
// the aggregator, may use the cache at once. Registers shorter than
// hllMemoMin bytes are counted each time; a nil cache remembers nothing.
type hllCache struct {
	memos [hllMemos]atomic.Pointer[hllMemo]
	next  atomic.Uint32 // the slot the next miss takes
}

const (
	hllMemos   = 8
	hllMemoMin = 3 * 256
)

// hllMemo is the estimate of some registers: a copy of them, found by
// content, or (own) an accumulator's own registers, found by identity
// only, since their owner may write them (AddOwned) while another task
// looks for its own; the owner replaces the memo as it writes them.
type hllMemo struct {
	regs []byte // a copy, never written; or (own) the accumulator's
	own  bool
	hist hllHistogram
	est  int64
}

// of reports whether m is the memo of regs.
func (m *hllMemo) of(regs []byte) bool {
	if m.own {
		return len(m.regs) == len(regs) && len(regs) > 0 && &m.regs[0] == &regs[0]
	}
	return bytes.Equal(m.regs, regs)
}

// find is the slot of the memo of regs, or -1.
func (c *hllCache) find(regs []byte) (int, *hllMemo) {
	for i := range c.memos {
		if m := c.memos[i].Load(); m != nil && m.of(regs) {
			return i, m
		}
	}
	return -1, nil
}

// rewrite runs write, AddOwned's change of the caller's own registers
// regs (a register raised from old to rank), and returns its result:
// regs, or the registers with an entry inserted. The memo of regs, if
// any, becomes the memo of the result with one register moved; any
// other memo of regs by identity is dropped first, as it would describe
// registers that are no longer there.
func (c *hllCache) rewrite(regs []byte, old, rank byte, write func() []byte) []byte {
	if c == nil || len(regs) < hllMemoMin {
		return write()
	}
	slot, m := c.find(regs)
	for k := range c.memos {
		if o := c.memos[k].Load(); k != slot && o != nil && o.own && o.of(regs) {
			c.memos[k].CompareAndSwap(o, nil)
		}
	}
	next := write()
	if m == nil {
		return next
	}
	n := &hllMemo{regs: next, own: true, hist: m.hist}
	n.hist[old]--
	n.hist[rank]++
	n.est = n.hist.estimate()
	c.memos[slot].Store(n)
	return next
}

// estimate is hllEstimate(regs).
func (c *hllCache) estimate(regs []byte) int64 {
	if c == nil || len(regs) < hllMemoMin {
		return hllEstimate(regs)
	}
	if _, m := c.find(regs); m != nil {
		return m.est
	}
	m := &hllMemo{regs: slices.Clone(regs)}
	m.hist.count(regs)
	m.est = m.hist.estimate()
	c.memos[c.next.Add(1)%hllMemos].Store(m)
	return m.est
}

// raised tells the cache that Add turned registers prev into next by
// raising hash h's register to its rank: when prev has a memo, next's
// memo, in its slot, is that memo with one register moved.
func (c *hllCache) raised(prev, next []byte, h int64) {
	if c == nil || len(prev) < hllMemoMin {
		return
	}
	slot, m := c.find(prev)
	if m == nil {
		return
	}
	i, rank := hllSlot(h)
	old := byte(0)
	if hllDense(prev) {
		old = prev[i]
	} else if at, found := hllFind(prev, i); found {
		old = prev[at+2]
	}
	// next is hllAdd's own allocation: the accumulator's, which its owner
	// may write in place (AddOwned), so the memo finds it by identity.
	n := &hllMemo{regs: next, own: true, hist: m.hist}
	n.hist[old]--
	n.hist[rank]++
	n.est = n.hist.estimate()
	c.memos[slot].Store(n)
}
