package physical

import (
	"math/rand/v2"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestOpenWindowsPrune: the heap forgets exactly the windows a scan of
// all of them finds closed, as stream time grows with windows (some
// repeated) added between the prunes.
func TestOpenWindowsPrune(t *testing.T) {
	const grace = 5
	rng := rand.New(rand.NewPCG(1, 2))
	var o openWindows
	all := map[types.Window]int64{} // the windows open, by the end they close at
	for st := int64(0); st < 2000; st += rng.Int64N(4) {
		for range rng.IntN(4) {
			start := st + rng.Int64N(50) - 10
			w := types.Window{Start: start, End: start + 1 + rng.Int64N(30)}
			if w.End+grace > st {
				o.add(w, w.End)
				all[w] = w.End
			}
		}
		o.prune(st, grace)
		for w, end := range all {
			if st >= end+grace {
				delete(all, w)
			}
		}
		if o.len() != len(all) {
			t.Fatalf("stream time %d: %d windows open, a scan finds %d", st, o.len(), len(all))
		}
		for w := range all {
			if _, ok := o.set[w]; !ok {
				t.Fatalf("stream time %d: window %v forgotten while open", st, w)
			}
		}
	}
}
