package state

// A transactional store's batch can only be read back by a Range if it is
// indexed, but indexing costs a skiplist insert per write, on the path of
// every record of a cache flush, and most stores (a GROUP BY's) never
// Range. So the batch starts plain and is indexed at the first Range of
// the transaction: a copy into an indexed batch, which then takes the
// transaction's remaining writes.

// indexedForRange makes the pending batch indexed, copying a plain one;
// s.mu is held and s.batch is not nil. The plain batch stays open until
// the transaction ends: pending's values point into its buffers.
func (s *pebbleStore) indexedForRange() error {
	if s.batch.Indexed() {
		return nil
	}
	ib := s.pdb.NewIndexedBatch()
	if err := ib.Apply(s.batch, nil); err != nil {
		_ = ib.Close()
		return err
	}
	s.spent = append(s.spent, s.batch)
	s.batch = ib
	return nil
}

// closeSpent closes the batches indexedForRange copied; s.mu is held.
func (s *pebbleStore) closeSpent() {
	for _, b := range s.spent {
		_ = b.Close()
	}
	s.spent = nil
}
