package state

import "hash/maphash"

// entryTable finds a cache's entries by key: open addressing, linear
// probing, each slot the key's hash beside its entry, at most half full.
// It replaces a Go map, whose deletes leave tombstones: a cache whose
// entries come and go in the order they were written (every new window
// of a tumbling or hopping aggregation is inserted once and evicted
// once) filled the map's groups with them, and every insert of a new key
// probed through them to the end of its run (matchH2 was 0.37 s of the
// 0.63 s of the inserts in BenchmarkTumblingCount). A delete here moves
// the entries after it back instead (backward-shift deletion), so a run
// is never longer than the entries in it.
type entryTable struct {
	seed  maphash.Seed
	slots []entrySlot // a power of two of them, or none
	n     int
}

type entrySlot struct {
	hash uint64
	e    *cacheEntry // nil: empty
}

// minEntrySlots is the table's first size.
const minEntrySlots = 16

func newEntryTable() entryTable { return entryTable{seed: maphash.MakeSeed()} }

// len is the number of entries.
func (t *entryTable) len() int { return t.n }

// get is key's entry, nil if none.
func (t *entryTable) get(key []byte) *cacheEntry {
	if t.n == 0 {
		return nil
	}
	return t.slots[t.find(key, maphash.Bytes(t.seed, key))].e
}

// find is the slot holding key (hash h), or the empty slot ending its
// run; the table is never full.
func (t *entryTable) find(key []byte, h uint64) int {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.e == nil || s.hash == h && s.e.key == string(key) {
			return i
		}
	}
}

// put adds e under its key, replacing the entry of the same key if any.
func (t *entryTable) put(e *cacheEntry) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := maphash.String(t.seed, e.key)
	i := t.findString(e.key, h)
	if t.slots[i].e == nil {
		t.n++
	}
	t.slots[i] = entrySlot{hash: h, e: e}
}

// findString is find of a key held as a string.
func (t *entryTable) findString(key string, h uint64) int {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.e == nil || s.hash == h && s.e.key == key {
			return i
		}
	}
}

// grow doubles the slots and puts every entry back.
func (t *entryTable) grow() {
	old := t.slots
	t.slots = make([]entrySlot, max(minEntrySlots, 2*len(old)))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.e == nil {
			continue
		}
		i := int(s.hash) & mask
		for t.slots[i].e != nil {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// remove drops e (by its key) if the table holds it.
func (t *entryTable) remove(e *cacheEntry) {
	if t.n == 0 {
		return
	}
	i := t.findString(e.key, maphash.String(t.seed, e.key))
	if t.slots[i].e != e {
		return
	}
	t.n--
	mask := len(t.slots) - 1
	for j := (i + 1) & mask; t.slots[j].e != nil; j = (j + 1) & mask {
		// The entry at j stays unless the hole at i lies between its
		// home slot and j (cyclically): then it moves into the hole.
		if home := int(t.slots[j].hash) & mask; !cyclicBetween(i, home, j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = entrySlot{}
}

// cyclicBetween reports whether k is in (i, j] going round the table.
func cyclicBetween(i, k, j int) bool {
	if i <= j {
		return i < k && k <= j
	}
	return i < k || k <= j
}
