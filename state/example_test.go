package state_test

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/sqlstream/sqlstream/state"
)

// producer stands in for the runtime's changelog producer: it numbers
// records like a changelog partition would.
type producer struct{ next int64 }

func (p *producer) Send(key, value []byte, _ int64) {
	fmt.Printf("changelog offset %d: %s=%s\n", p.next, key, value)
	p.next++
}

// Example shows the task's commit protocol and a restart that replays
// only the changelog tail.
func Example() {
	fs := vfs.NewMem()
	db, _ := state.Open("data", state.WithFS(fs), state.WithBlockCache(8<<20))
	id := state.StoreID{App: "app", Name: "counts", Partition: 0}
	log := &producer{}
	st, _ := db.Store(id, state.WithChangelog(log))
	for _, v := range []string{"1", "2", "3"} {
		_ = st.Put([]byte("k"), []byte(v)) // absorbed by the cache
	}
	_ = st.Flush()                  // commit: one record for k
	_ = db.Checkpoint(id, log.next) // after the producer flushed
	_ = st.Close()
	_ = db.Close()

	db, _ = state.Open("data", state.WithFS(fs))
	defer db.Close()
	from, ok := db.Checkpointed(id)
	fmt.Println("restore from", from, ok)
	st, _ = db.Store(id)
	v, _ := st.Get([]byte("k"))
	fmt.Printf("k=%s\n", v)
	// Output:
	// changelog offset 0: k=3
	// restore from 1 true
	// k=3
}
