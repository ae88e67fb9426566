package state

import (
	"fmt"
	"testing"
)

// TestCachedUpdateAllocations: the update of a cached key (GetLazy, then
// PutLazy of the value it found, as an aggregation's) allocates nothing,
// and the put finds the entry the read found; writing the key down again (its
// changelog record, the Pebble batch) makes its bytes in a reused
// buffer, not a new slice the entry keeps.
func TestCachedUpdateAllocations(t *testing.T) {
	db := memDB(t)
	st, err := db.Store(testID, WithCache(1<<20))
	must(t, err)
	keys := make([][]byte, 10)
	made := 0
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("key%02d", i))
		must(t, PutLazy(st, keys[i], &textLazy{text: fmt.Sprint("value", i), made: &made}))
	}
	must(t, st.Flush())
	n := 0
	update := func() {
		k := keys[n%len(keys)]
		n++
		l, _, err := GetLazy(st, k)
		must(t, err)
		must(t, PutLazy(st, k, l))
	}
	if a := testing.AllocsPerRun(100, update); a != 0 {
		t.Errorf("%.1f allocations per update of a cached key, want 0", a)
	}
	cs := cachingLayer(t, st)
	l, _, err := GetLazy(st, keys[3])
	must(t, err)
	if cs.last == nil || cs.last.key != string(keys[3]) || cs.last.lazy != l {
		t.Errorf("after GetLazy of %s the cache's last entry is %+v, want that key's (the put finds it without a map probe)", keys[3], cs.last)
	}
	must(t, WriteCached(st))
	for _, k := range keys {
		if e := cs.entries.get(k); e.value != nil || e.dirty {
			t.Errorf("%s after WriteCached: value %q kept, dirty %v; want its bytes made for the write only", k, e.value, e.dirty)
		}
	}
	if cap(cs.valBuf) == 0 {
		t.Error("the write-down's value buffer was never used")
	}
	checkGet(t, st, map[string]string{"key03": "value3"}, "key03")
}

// cachingLayer is st's caching layer.
func cachingLayer(t *testing.T, st Store) *cachingStore {
	t.Helper()
	for {
		switch s := st.(type) {
		case *cachingStore:
			return s
		case *meteredStore:
			st = s.inner
		default:
			t.Fatalf("no caching layer in %T", st)
		}
	}
}

// TestCachedNewKeyAllocations: a put of a new short key into the cache
// costs one allocation, its entry with the key inside (a new window of a
// tumbling aggregation is one per record); a long key is one more. The
// key stays intact however the entry is later updated.
func TestCachedNewKeyAllocations(t *testing.T) {
	for _, tc := range []struct {
		keyLen int
		want   float64
	}{{inlineKeyBytes, 1}, {inlineKeyBytes + 1, 2}} {
		c := newCachingStore(memStore(t), 1<<30, nil)
		keys := make([][]byte, 300)
		for i := range keys {
			keys[i] = fmt.Appendf(nil, "%0*d", tc.keyLen, i)
		}
		for _, k := range keys[:100] { // the table grows here
			c.upsert(k, nil, nil, true)
		}
		for e := c.front(); e != nil; e = c.front() {
			c.drop(e) // room for the rest without growing
		}
		n := 100
		put := func() { c.upsert(keys[n], nil, nil, true); n++ }
		a := testing.AllocsPerRun(100, put)
		t.Logf("%d-byte keys: %.1f allocations", tc.keyLen, a)
		if a > tc.want {
			t.Errorf("%.1f allocations per new %d-byte key, want %.0f", a, tc.keyLen, tc.want)
		}
		for _, k := range keys[100:n] {
			c.upsert(k, []byte("v"), nil, true)
			if e := c.entries.get(k); e == nil || e.key != string(k) {
				t.Fatalf("entry of %q after an update: %+v", k, e)
			}
		}
	}
}
