package state

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestEntryTableMatchesMap runs random puts, replacements and removes
// against a Go map, on keys few enough that runs collide, wrap round the
// end of the slots and shift back on removal, and checks after every
// step that each key finds its entry and no removed key is found.
func TestEntryTableMatchesMap(t *testing.T) {
	for _, keys := range []int{5, 40, 3000} {
		r := rand.New(rand.NewSource(int64(keys)))
		tab := newEntryTable()
		model := make(map[string]*cacheEntry)
		for step := range 20 * keys {
			k := fmt.Sprint("k", r.Intn(keys))
			switch e := model[k]; {
			case e != nil && r.Intn(2) == 0:
				tab.remove(e)
				delete(model, k)
			default:
				e := &cacheEntry{}
				e.setKey([]byte(k))
				tab.put(e)
				model[k] = e
			}
			if tab.len() != len(model) {
				t.Fatalf("keys=%d step %d: table holds %d entries, the map %d", keys, step, tab.len(), len(model))
			}
			if step%17 == 0 || keys < 100 {
				checkTable(t, &tab, model, keys)
			}
		}
		checkTable(t, &tab, model, keys)
	}
}

func checkTable(t *testing.T, tab *entryTable, model map[string]*cacheEntry, keys int) {
	t.Helper()
	for i := range keys {
		k := fmt.Sprint("k", i)
		if got, want := tab.get([]byte(k)), model[k]; got != want {
			t.Fatalf("keys=%d: get(%s) = %p, want %p", keys, k, got, want)
		}
	}
	if 2*tab.len() > len(tab.slots) {
		t.Fatalf("%d entries in %d slots: more than half full", tab.len(), len(tab.slots))
	}
}

// TestEntryTableRemoveOther: removing an entry the table does not hold
// (a different entry of the same key, or any from an empty table)
// changes nothing.
func TestEntryTableRemoveOther(t *testing.T) {
	tab := newEntryTable()
	stranger := &cacheEntry{}
	stranger.setKey([]byte("a"))
	tab.remove(stranger)
	held := &cacheEntry{}
	held.setKey([]byte("a"))
	tab.put(held)
	tab.remove(stranger)
	if tab.len() != 1 || tab.get([]byte("a")) != held {
		t.Fatalf("after removing a stranger: %d entries, a -> %p, want 1 and %p", tab.len(), tab.get([]byte("a")), held)
	}
}
