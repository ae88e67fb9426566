package physical

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// keptRows is a processor that keeps a description of every row it is
// given, and the record the task was on.
type keptRows struct {
	env  *TaskEnv
	rows []string
}

func (k *keptRows) Process(row *types.Row) error {
	from := "-"
	if c := k.env.current; c != nil {
		from = fmt.Sprintf("%s/%d/%d", c.Topic, c.Partition, c.Offset)
	}
	w := ""
	if row.Window != nil {
		w = fmt.Sprintf(" w%d-%d", row.Window.Start, row.Window.End)
	}
	k.rows = append(k.rows, fmt.Sprintf("%v old %v(%v) t%d%s tomb %v from %s", row.Values, row.Old, row.HasOld, row.Time, w, row.Tombstone, from))
	return nil
}

// TestOutputCacheFlushOrderAndOld: a flush forwards each key once, in
// the order of the keys' last updates (Kafka Streams' dirty keys), with
// the latest values, time, window and record context, and as the old
// value the one before the key's first update since the last flush;
// the caller's reused slices and window are copied, not kept.
func TestOutputCacheFlushOrderAndOld(t *testing.T) {
	env := &TaskEnv{CacheOutputs: true}
	out := &keptRows{env: env}
	c := newOutputCache(env, out)
	task := &Task{env: env}
	vals, old := make([]any, 2), make([]any, 2)
	win := types.Window{Start: 0, End: 10}
	put := func(key string, n int64, o []any, off int64) {
		env.current = &InRecord{Topic: "in", Offset: off}
		vals[0], vals[1] = key, n
		row := &types.Row{Values: vals, Time: 100 + off, Window: &win, Old: o, HasOld: true}
		c.put([]byte(key), row)
	}
	copy(old, []any{"a", int64(7)})
	put("a", 8, old, 1)
	put("b", 1, nil, 2)
	copy(old, []any{"a", int64(8)}) // the caller reuses its slices
	put("a", 9, old, 3)
	win.End = 99 // and its window
	if n := task.CachedOutputBytes(); n <= 0 {
		t.Fatalf("cached bytes %d with two keys cached", n)
	}
	env.current = &InRecord{Topic: "now"}
	if err := task.FlushOutputs(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[b 1] old [](true) t102 w0-10 tomb false from in/0/2",
		"[a 9] old [a 7](true) t103 w0-10 tomb false from in/0/3",
	}
	if fmt.Sprint(out.rows) != fmt.Sprint(want) {
		t.Errorf("flushed\n%v\nwant\n%v", out.rows, want)
	}
	if env.current == nil || env.current.Topic != "now" {
		t.Errorf("the task's current record is %+v after the flush, want it as it was", env.current)
	}
	if n := task.CachedOutputBytes(); n != 0 {
		t.Errorf("cached bytes %d after the flush", n)
	}
	out.rows = nil
	if err := task.FlushOutputs(); err != nil || len(out.rows) != 0 {
		t.Errorf("a second flush forwarded %v (%v), want nothing", out.rows, err)
	}
}

// borrowingRows is keptRows borrowing values (it formats them), so the
// cache refills its flushed entries.
type borrowingRows struct{ keptRows }

func (b *borrowingRows) borrowsValues() bool { return true }

// TestOutputCacheHotKeyAndReuse: a key updated 1000 times between two
// flushes is forwarded once, with the cache's order kept to a few slots
// per key (stale ones compacted away); after a flush the entries are
// refilled for the next keys when the successor borrows values, and
// forward what those keys were given, not what was there before.
func TestOutputCacheHotKeyAndReuse(t *testing.T) {
	env := &TaskEnv{CacheOutputs: true}
	out := &borrowingRows{keptRows{env: env}}
	c := newOutputCache(env, out)
	if !c.reuse {
		t.Fatal("a borrowing successor, and the cache does not refill its entries")
	}
	task := &Task{env: env}
	for i := range 1000 {
		c.put([]byte("hot"), &types.Row{Values: []any{"hot", int64(i)}, Time: int64(i), HasOld: true})
		if len(c.order) > 2*len(c.byKey)+65 {
			t.Fatalf("%d order slots for %d keys", len(c.order), len(c.byKey))
		}
	}
	if err := task.FlushOutputs(); err != nil {
		t.Fatal(err)
	}
	c.put([]byte("x"), &types.Row{Values: []any{"x", int64(1)}, Time: 5, Old: []any{"x", int64(0)}, HasOld: true})
	c.put([]byte("y"), &types.Row{Values: []any{"y", int64(2)}, Time: 6, HasOld: true})
	if len(c.free) != 0 {
		t.Errorf("%d free entries after two puts, want the flushed one taken", len(c.free))
	}
	if err := task.FlushOutputs(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"[hot 999] old [](true) t999 tomb false from -",
		"[x 1] old [x 0](true) t5 tomb false from -",
		"[y 2] old [](true) t6 tomb false from -",
	}
	if fmt.Sprint(out.rows) != fmt.Sprint(want) {
		t.Errorf("flushed\n%v\nwant\n%v", out.rows, want)
	}
}

// TestOutputCacheHeadersRefilledUntilFlushed: a hot group's updates
// copy their input's headers into the entry's one slice until it is
// flushed (no allocation an update), the flush forwards the last
// update's headers, and a record the sink keeps from a flush keeps its
// headers while the next interval's updates copy theirs elsewhere.
func TestOutputCacheHeadersRefilledUntilFlushed(t *testing.T) {
	env := &TaskEnv{CacheOutputs: true}
	var kept [][]Header
	out := &borrowingRows{keptRows{env: env}}
	c := newOutputCache(env, processorFunc(func(row *types.Row) error {
		kept = append(kept, env.current.Headers)
		return out.Process(row)
	}))
	c.reuse = true
	task := &Task{env: env}
	in := &InRecord{Topic: "in", Headers: []Header{{Key: originHeader, Value: []byte("bid/0/1")}}}
	row := &types.Row{Values: []any{"hot", int64(1)}, HasOld: true}
	env.current = in
	c.put([]byte("hot"), row)
	next, key := []byte("bid/0/2"), []byte("hot")
	allocs := testing.AllocsPerRun(100, func() {
		in.Headers[0].Value = next
		c.put(key, row)
	})
	if allocs > 0 {
		t.Errorf("a hot group's update costs %.0f allocations, want 0", allocs)
	}
	in.Headers = []Header{{Key: originHeader, Value: []byte("bid/0/3")}}
	c.put([]byte("hot"), row)
	if err := task.FlushOutputs(); err != nil {
		t.Fatal(err)
	}
	env.current = &InRecord{Topic: "in", Headers: []Header{{Key: originHeader, Value: []byte("bid/0/4")}}}
	c.put([]byte("hot"), row)
	env.current = &InRecord{Topic: "in"}
	c.put([]byte("cold"), row)
	if err := task.FlushOutputs(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(len(kept), " ", kept[0], " ", kept[1], " ", kept[2] == nil)
	want := fmt.Sprint(3, " ", []Header{{Key: originHeader, Value: []byte("bid/0/3")}}, " ",
		[]Header{{Key: originHeader, Value: []byte("bid/0/4")}}, " ", true)
	if got != want {
		t.Errorf("forwarded headers %s, want %s", got, want)
	}
}
