package state

import (
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// ReadCommitted calls fn for every committed entry of store partition id
// with a key in [start, end) (nil is unbounded), in key order, until fn
// returns false. It reads what the partition's last Flush (or restore)
// committed, never the owner's pending writes, so it is safe to call while
// a task owns the partition: pull queries use it. The slices passed to fn
// are valid only during the call. A partition never created reads empty.
func (d *DB) ReadCommitted(id StoreID, start, end []byte, fn func(k, v []byte) bool) error {
	p, ok, err := d.known(id)
	if err != nil || !ok {
		return err
	}
	pdb, done, err := d.use()
	if err != nil {
		return err
	}
	defer done()
	snap, seg, err := committedView(pdb, p)
	if err != nil {
		return fmt.Errorf("state: read %s: %w", id, err)
	}
	defer snap.Close()
	if err := iterate(snap.NewIter, p.prefix, seg, 0, start, end, fn); err != nil {
		return fmt.Errorf("state: read %s: %w", id, err)
	}
	return nil
}

// committedView is a snapshot of pdb and the layout of p in it (its
// segment interval, 0: plain), so a read racing the partition's one
// rewrite to segments (useSegments) sees either layout whole.
func committedView(pdb *pebble.DB, p *partition) (*pebble.Snapshot, int64, error) {
	snap := pdb.NewSnapshot()
	v, err := getFrom(snap, p.prefix.meta(segmentTag))
	if err != nil {
		return nil, 0, errors.Join(err, snap.Close())
	}
	if v == nil {
		return snap, 0, nil
	}
	seg, err := decodeInt64(v)
	if err != nil {
		return nil, 0, errors.Join(err, snap.Close())
	}
	return snap, seg, nil
}

// GetCommitted returns the committed value of key in store partition id
// (nil when absent), like ReadCommitted for one key.
func (d *DB) GetCommitted(id StoreID, key []byte) ([]byte, error) {
	var out []byte
	end := append(append([]byte(nil), key...), 0)
	err := d.ReadCommitted(id, key, end, func(k, v []byte) bool {
		out = append([]byte(nil), v...)
		return false
	})
	return out, err
}
