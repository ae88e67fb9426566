package state

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// TestCachingQueueStaysSmall uses the cache as EMIT FINAL uses its
// buffer: keys are added in increasing order, and after every addition
// the prefix of closed keys is read with a Range and deleted. Cached
// deletes stay out of the index a Range walks, flushes take the
// written-down deletes out of the cache, so it holds only the open keys,
// each Range sees exactly those due, and the flushed store ends up empty.
func TestCachingQueueStaysSmall(t *testing.T) {
	below := memStore(t)
	c := newCachingStore(below, 1<<20, nil)
	const open = 20 // keys stay this many additions before they are due
	key := func(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }
	for i := range 2000 {
		must(t, c.Put(key(i), []byte(fmt.Sprint(i))))
		if i < open {
			continue
		}
		var due [][]byte
		must(t, c.Range(nil, key(i-open+1), func(k, _ []byte) bool {
			due = append(due, append([]byte(nil), k...))
			return true
		}))
		if len(due) != 1 || string(due[0]) != string(key(i-open)) {
			t.Fatalf("addition %d: due %x, want [%x]", i, due, key(i-open))
		}
		for _, k := range due {
			must(t, c.Put(k, nil))
		}
		if c.ordered.Len() != open {
			t.Fatalf("addition %d: %d values indexed for Range, want the %d open keys", i, c.ordered.Len(), open)
		}
		if i%100 == 99 {
			must(t, c.Flush())
			if c.entries.len() != open || c.ordered.Len() != open {
				t.Fatalf("after flush %d: %d entries, %d ordered, want the %d open keys", i, c.entries.len(), c.ordered.Len(), open)
			}
		}
	}
	var rest [][]byte
	must(t, c.Range(nil, nil, func(k, _ []byte) bool { rest = append(rest, append([]byte(nil), k...)); return true }))
	for _, k := range rest {
		must(t, c.Put(k, nil))
	}
	must(t, c.Flush())
	n := 0
	must(t, below.Range(nil, nil, func(_, _ []byte) bool { n++; return true }))
	if n != 0 || c.entries.len() != 0 {
		t.Fatalf("after deleting everything: %d keys below, %d cached", n, c.entries.len())
	}
}
