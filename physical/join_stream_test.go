package physical

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/types"
	"github.com/sqlstream/sqlstream/state"
)

// dbStores opens a task's stores in a state.DB (no changelog).
type dbStores struct{ db *state.DB }

func (d dbStores) Store(name string) (Store, error) {
	return d.db.Store(state.StoreID{App: "app", Name: name})
}

// storedTimes lists the row times the window store holds locally.
func storedTimes(t *testing.T, sw *streamWindow) []int64 {
	t.Helper()
	var out []int64
	if err := sw.w.FetchAll(0, 1<<62, func(_ []byte, ts int64, _ []byte) bool {
		out = append(out, ts)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestStreamWindowPurgesAndRefusesLateRows: rows older than the store's
// stream time minus the retention are purged once stream time has moved a
// segment interval past them, a row that old is refused (late), and a
// reopened store continues from the stream time its rows carry.
func TestStreamWindowPurgesAndRefusesLateRows(t *testing.T) {
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := &TaskEnv{Stores: dbStores{db}}
	src := &planner.Source{Schema: &types.Schema{Columns: []types.Column{{Name: "V", Type: types.BigintType}}}}
	const retention = 100000 // segment interval: 1 minute
	open := func() *streamWindow {
		sw, err := openStreamWindow(env, "KSTREAM-JOINTHIS-0000000008-store", src, jsonKeys, jsonKeys, []*types.Type{types.StringType}, &ast.JoinWindow{Before: 1000, After: 1000}, retention, false)
		if err != nil {
			t.Fatal(err)
		}
		return sw
	}
	sw := open()
	k, err := sw.key.Encode(nil, []any{"k"})
	if err != nil {
		t.Fatal(err)
	}
	put := func(ts int64) bool {
		t.Helper()
		stored, err := sw.put(k, []any{ts}, ts)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	for _, ts := range []int64{0, 50000, 120000} {
		if !put(ts) {
			t.Fatalf("row at %d refused", ts)
		}
	}
	// Stream time 120000: rows before 20000 are purged (the first purge);
	// a row at 10000 is late.
	if put(10000) {
		t.Fatal("late row at 10000 stored")
	}
	if got := fmt.Sprint(storedTimes(t, sw)); got != "[50000 120000]" {
		t.Fatalf("after the first purge: %s", got)
	}
	// Stream time 150000: rows before 50000 are expired (unreadable) but
	// not purged until stream time moved a segment interval on.
	put(150000)
	if got := fmt.Sprint(storedTimes(t, sw)); got != "[50000 120000 150000]" {
		t.Fatalf("within the segment interval: %s", got)
	}
	// Stream time 200000: rows before 100000 are purged.
	put(200000)
	if got := fmt.Sprint(storedTimes(t, sw)); got != "[120000 150000 200000]" {
		t.Fatalf("after the second purge: %s", got)
	}
	if err := sw.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := sw.w.Close(); err != nil {
		t.Fatal(err)
	}
	sw = open()
	if sw.observed != 200000 {
		t.Fatalf("reopened store's stream time %d, want 200000", sw.observed)
	}
	if put(90000) {
		t.Fatal("late row at 90000 stored after reopening")
	}
}
