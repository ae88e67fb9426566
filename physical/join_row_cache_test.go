package physical

import (
	"testing"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// countingStore counts the reads that reach the store.
type countingStore struct {
	Store
	gets, ranges int
}

func (s *countingStore) Get(k []byte) ([]byte, error) {
	s.gets++
	return s.Store.Get(k)
}

func (s *countingStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	s.ranges++
	return s.Store.Range(start, end, fn)
}

// TestRowCacheServesRepeatedLookups: a join's table side looked up again
// under the same key is served decoded from its row cache, present or
// absent, without reading the store; the table side's write of a key is
// seen by the next lookup (an insert of a key known absent, an update, a
// delete); past its bound in bytes the cache evicts, and what it no
// longer holds is read from the store again. The store starts empty, so
// the first lookup's scan leaves the cache complete: absent keys, and
// the old rows of keys written, need no read until an eviction.
func TestRowCacheServesRepeatedLookups(t *testing.T) {
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, err := db.Store(state.StoreID{App: "app", Name: "Join-right-store"})
	if err != nil {
		t.Fatal(err)
	}
	store := &countingStore{Store: raw}
	schema := &types.Schema{Columns: []types.Column{
		{Name: "ID", Type: types.StringType, NS: types.KeyNS},
		{Name: "NAME", Type: types.StringType, NS: types.ValueNS},
	}}
	side, err := newSideStore(store, schema, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON})
	if err != nil {
		t.Fatal(err)
	}
	side.rows = newRowCache(300) // two rows: a, b and c cost 97, 141 and 145 (rowCost)
	lookup := func(id string) any {
		t.Helper()
		r, err := side.lookup([]any{id}, []int{0}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return nil
		}
		return r.values[1]
	}
	write := func(id string, name any, tombstone bool) {
		t.Helper()
		if _, _, err := side.update(&types.Row{Values: []any{id, name}, Time: 1, Tombstone: tombstone}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(id string, want any, gets int) {
		t.Helper()
		if got := lookup(id); got != want || store.gets != gets {
			t.Fatalf("lookup %s: %v after %d store reads, want %v after %d", id, got, store.gets, want, gets)
		}
	}
	check("a", nil, 0) // absent: the cache is complete
	check("a", nil, 0)
	write("a", "alice", false)
	check("a", "alice", 1) // the write found "a" known absent, the lookup reads the new row
	check("a", "alice", 1)
	write("a", "ann", false)
	check("a", "ann", 2)
	write("a", nil, true)
	check("a", nil, 3)
	write("b", "bob", false)   // b's old row: none, known without a read
	write("c", "carol", false) // nor c's
	check("b", "bob", 4)       // a third key in a cache of two: one is evicted, completeness ends
	check("c", "carol", 5)
	if len(side.rows.rows) != 2 || side.rows.bytes > side.rows.max {
		t.Errorf("the cache holds %d rows of cost %d, bound %d (two rows)", len(side.rows.rows), side.rows.bytes, side.rows.max)
	}
	for id, want := range map[string]any{"a": nil, "b": "bob", "c": "carol"} {
		if got := lookup(id); got != want {
			t.Errorf("after eviction, lookup %s: %v, want %v", id, got, want)
		}
	}
}

// TestRowCacheWarmsFromOneScan: after a restart (a new side store over
// the same store), the first lookup fills the cache from one scan, so
// neither the rows present nor a key absent cost a read, and the rows
// are those the store holds (key column, columns, time); a cache too
// small for the store holds what fitted and reads the rest, absent keys
// included; a windowed table's store is not scanned.
func TestRowCacheWarmsFromOneScan(t *testing.T) {
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, err := db.Store(state.StoreID{App: "app", Name: "Join-right-store"})
	if err != nil {
		t.Fatal(err)
	}
	schema := &types.Schema{Columns: []types.Column{
		{Name: "ID", Type: types.StringType, NS: types.KeyNS},
		{Name: "NAME", Type: types.StringType, NS: types.ValueNS},
	}}
	open := func(bound int) (*sideStore, *countingStore) {
		t.Helper()
		store := &countingStore{Store: raw}
		side, err := newSideStore(store, schema, format.Spec{Name: format.Kafka}, format.Spec{Name: format.JSON})
		if err != nil {
			t.Fatal(err)
		}
		side.rows = newRowCache(bound)
		return side, store
	}
	loader, _ := open(1 << 20)
	for i, id := range []string{"a", "b", "c"} {
		if _, _, err := loader.update(&types.Row{Values: []any{id, "name_" + id}, Time: int64(100 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Flush(); err != nil {
		t.Fatal(err)
	}
	lookup := func(side *sideStore, id string, w *types.Window) *sideRow {
		t.Helper()
		r, err := side.lookup([]any{id}, []int{0}, w)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	side, store := open(1 << 20)
	for i, id := range []string{"c", "a", "b"} {
		r := lookup(side, id, nil)
		ts := int64(100 + (i+2)%3)
		if r == nil || r.values[0] != id || r.values[1] != "name_"+id || r.time != ts || r.boxed != any(ts) {
			t.Fatalf("lookup %s: %+v, want [%s name_%s] at %d", id, r, id, id, ts)
		}
	}
	if r := lookup(side, "zz", nil); r != nil || store.gets != 0 || store.ranges != 1 {
		t.Fatalf("lookup zz: %+v after %d reads and %d scans, want none after 0 reads and 1 scan", r, store.gets, store.ranges)
	}
	// b ‖ ts ‖ {"NAME":"name_b"}: cost 1 + 2·27 + 96 = 151 each: two fit
	small, store := open(2 * 151)
	if r := lookup(small, "zz", nil); r != nil || store.gets != 1 {
		t.Fatalf("lookup zz in an incomplete cache: %+v after %d reads, want none after 1", r, store.gets)
	}
	if len(small.rows.rows) != 2 || small.rows.complete {
		t.Fatalf("an incomplete warm holds %d rows (complete %v), want 2", len(small.rows.rows), small.rows.complete)
	}
	windowed, store := open(1 << 20)
	lookup(windowed, "a", &types.Window{Start: 0, End: 1000})
	if store.ranges != 0 || store.gets != 1 {
		t.Fatalf("a windowed lookup: %d scans and %d reads, want 0 and 1", store.ranges, store.gets)
	}
}
