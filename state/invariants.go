package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// checkKeyCount panics unless the committed key count of s's partition
// equals the number of keys a scan finds. Only with invariants on.
func (s *pebbleStore) checkKeyCount() {
	p := s.part.prefix
	it, err := s.db.pdb.NewIter(&pebble.IterOptions{LowerBound: p.data(), UpperBound: p.dataEnd()})
	if err != nil {
		panic(err)
	}
	defer it.Close()
	var n int64
	for it.First(); it.Valid(); it.Next() {
		n++
	}
	if got := s.part.keys.Load(); got != n {
		panic(fmt.Sprintf("state: %s counts %d keys, a scan finds %d", s.part.id, got, n))
	}
}
