package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// CommitTransaction commits the pending writes of the transactional store
// partition id (see Transactional) in one Pebble batch with its checkpoint
// at offset, once the Kafka transaction that carried their changelog
// records committed; a negative offset leaves the checkpoint as it is.
// With no store open, or nothing pending, only the checkpoint is written.
// An error leaves local state behind its changelog: restore it from the
// last durable checkpoint.
func (d *DB) CommitTransaction(id StoreID, offset int64) error {
	return d.commitTransaction(id, offset, d.wopt)
}

// CommitTransactionUnsynced is CommitTransaction without waiting for the
// fsync: for a Kafka transaction that spans several store partitions, each
// is committed unsynced and one SyncCommits then makes them all durable,
// one fsync instead of one each. Each partition's writes still commit
// atomically with its checkpoint, so a crash before the sync leaves each
// at a consistent checkpoint (its last durable one), as a crash between
// single commits would.
func (d *DB) CommitTransactionUnsynced(id StoreID, offset int64) error {
	return d.commitTransaction(id, offset, pebble.NoSync)
}

// SyncCommits makes every commit before it durable (under WithSync; a
// no-op without): an empty log record written with Sync, the WAL being one
// sequential log.
func (d *DB) SyncCommits() error {
	if !d.cfg.sync {
		return nil
	}
	if err := d.write("sync commits", true, func(pdb *pebble.DB) error { return pdb.LogData(nil, pebble.Sync) }); err != nil {
		return fmt.Errorf("state: sync commits: %w (local state may be behind its changelog; restore it)", err)
	}
	return nil
}

func (d *DB) commitTransaction(id StoreID, offset int64, wo *pebble.WriteOptions) error {
	if o := d.owner(id); o != nil {
		if done, err := o.commitTransaction(offset, wo); done || err != nil {
			return err
		}
	}
	if offset < 0 {
		return nil
	}
	return d.checkpoint(id, offset, wo)
}

// commitTransaction stages the checkpoint and commits the batch; done is
// false when there was no batch to commit.
func (s *pebbleStore) commitTransaction(offset int64, wo *pebble.WriteOptions) (done bool, err error) {
	exit, err := s.enter()
	if err != nil {
		return false, err
	}
	defer exit()
	if s.batch == nil {
		return false, nil
	}
	if offset >= 0 {
		s.ckpt = encodeInt64(offset)
	}
	if err := s.commit(wo); err != nil {
		return true, fmt.Errorf("state: commit transaction: %w", err)
	}
	return true, nil
}
