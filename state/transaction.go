package state

import "fmt"

// CommitTransaction commits the pending writes of the transactional store
// partition id (see Transactional) in one Pebble batch with its checkpoint
// at offset, once the Kafka transaction that carried their changelog
// records committed; a negative offset leaves the checkpoint as it is.
// With no store open, or nothing pending, only the checkpoint is written.
// An error leaves local state behind its changelog: restore it from the
// last durable checkpoint.
func (d *DB) CommitTransaction(id StoreID, offset int64) error {
	if o := d.owner(id); o != nil {
		if done, err := o.commitTransaction(offset); done || err != nil {
			return err
		}
	}
	if offset < 0 {
		return nil
	}
	return d.Checkpoint(id, offset)
}

// commitTransaction stages the checkpoint and commits the batch; done is
// false when there was no batch to commit.
func (s *pebbleStore) commitTransaction(offset int64) (done bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, errStoreClosed
	}
	if s.batch == nil {
		return false, nil
	}
	if offset >= 0 {
		s.ckpt = encodeInt64(offset)
	}
	if err := s.commit(s.db.wopt); err != nil {
		return true, fmt.Errorf("state: commit transaction: %w", err)
	}
	return true, nil
}
