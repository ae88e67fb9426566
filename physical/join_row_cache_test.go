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
	gets int
}

func (s *countingStore) Get(k []byte) ([]byte, error) {
	s.gets++
	return s.Store.Get(k)
}

// TestRowCacheServesRepeatedLookups: a join's table side looked up again
// under the same key is served decoded from its row cache, present or
// absent, without reading the store; the table side's write of a key is
// seen by the next lookup (an insert of a key known absent, an update, a
// delete); past its bound in bytes the cache evicts, and what it no
// longer holds is read from the store again.
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
	check("a", nil, 1) // absent: read once
	check("a", nil, 1) // … then known absent
	write("a", "alice", false)
	check("a", "alice", 2) // the write found "a" known absent, the lookup reads the new row
	check("a", "alice", 2)
	write("a", "ann", false)
	check("a", "ann", 3)
	write("a", nil, true)
	check("a", nil, 4)
	write("b", "bob", false)   // reads b's old row: 5
	write("c", "carol", false) // 6
	check("b", "bob", 7)
	check("c", "carol", 8) // a third key in a cache of two: one is evicted
	if len(side.rows.rows) != 2 || side.rows.bytes > side.rows.max {
		t.Errorf("the cache holds %d rows of cost %d, bound %d (two rows)", len(side.rows.rows), side.rows.bytes, side.rows.max)
	}
	for id, want := range map[string]any{"a": nil, "b": "bob", "c": "carol"} {
		if got := lookup(id); got != want {
			t.Errorf("after eviction, lookup %s: %v, want %v", id, got, want)
		}
	}
}
