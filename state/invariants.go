package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// checkKeyCount panics unless the committed key count of s's partition
// equals the number of keys a scan finds. Only with invariants on.
func (s *pebbleStore) checkKeyCount() {
	p := s.part.prefix
	it, err := s.pdb.NewIter(&pebble.IterOptions{LowerBound: p.data(), UpperBound: p.dataEnd()})
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

// checkAbsent panics if k, which the partition's filter says was never
// written, is in the DB. Only with invariants on.
func (s *pebbleStore) checkAbsent(k []byte) {
	v, err := getFrom(s.pdb, k)
	if err != nil {
		panic(err)
	}
	if v != nil {
		panic(fmt.Sprintf("state: %s: key %x is stored but its filter says it was never written", s.part.id, k))
	}
}
