package rowqueue

import (
	"sync"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Bounds, in bytes, on what one transient query holds for a client that
// does not read (a stalled push reader): the rows waiting for the client
// (RowBytes) and the records fetched ahead (the push runner's fetch
// bound in runtime/exec, pushFetchBytes, the same size). Before, they were bounded in counts
// only (256 rows) and by franz-go's default fetch size (50 MiB), and a
// stalled reader held ≈ 53 MB. Now a stalled push query holds about
// RowBytes + the fetch bound (measured through the binary: eight
// stalled readers of 200 kB rows, 749 MB before, 68 MB after). A row or
// record bigger than its bound still goes through, alone: the bounds only
// stop reading ahead. The fetch bound is on the bytes the broker sends:
// records that compress very well decompress to many times that (kgo
// decompresses whole batches), which no consumer setting bounds.
const RowBytes = 1 << 20 // rows queued for the client

// rowBudget counts the bytes of the rows queued for a client and makes
// the producer wait while a new row would pass max, unless none is
// queued.
type rowBudget struct {
	mu    sync.Mutex
	used  int
	max   int
	freed chan struct{} // a token when bytes were released
}

func newRowBudget(max int) *rowBudget {
	return &rowBudget{max: max, freed: make(chan struct{}, 1)}
}

// acquire takes n bytes, waiting for room; false if closed closes first.
func (b *rowBudget) acquire(n int, closed <-chan struct{}) bool {
	for {
		b.mu.Lock()
		if b.used == 0 || b.used+n <= b.max {
			b.used += n
			b.mu.Unlock()
			return true
		}
		b.mu.Unlock()
		select {
		case <-b.freed:
		case <-closed:
			return false
		}
	}
}

// release gives back n bytes and wakes a waiting acquire.
func (b *rowBudget) release(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	select {
	case b.freed <- struct{}{}:
	default:
	}
}

// rowBytes estimates the memory of a row's values: a word pair per
// value, plus the bytes of strings and byte arrays and the contents of
// arrays, maps and structs.
func rowBytes(vals []any) int {
	n := 24
	for _, v := range vals {
		n += valueBytes(v)
	}
	return n
}

func valueBytes(v any) int {
	switch x := v.(type) {
	case string:
		return 16 + len(x)
	case []byte:
		return 24 + len(x)
	case []any:
		return rowBytes(x)
	case map[string]any:
		n := 48
		for k, e := range x {
			n += 16 + len(k) + valueBytes(e)
		}
		return n
	case *types.StructValue:
		if x == nil {
			return 16
		}
		return 8 + rowBytes(x.Values)
	}
	return 16
}
