package state

// getUnmirrored reads full key k of a transactional store whose batch
// holds writes pending does not mirror (a cache flush's): through the
// batch, indexed on the first such read (as for a Range), and the DB
// below it. pending may hold an older value of k than the batch, so it is
// not consulted. s.mu is held.
func (s *pebbleStore) getUnmirrored(k []byte) ([]byte, error) {
	if s.neverWritten(k) {
		return nil, nil
	}
	if err := s.indexedForRange(); err != nil {
		return nil, err
	}
	return getFrom(s.batch, k)
}
