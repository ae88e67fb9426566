package state

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// GetManyCommitted calls fn for each of keys that has a committed value in
// store partition id, in key order, until fn returns false. keys must be
// sorted and free of duplicates. It is ReadCommitted for a set of keys:
// one iterator (one consistent view) seeks from key to key, instead of one
// iterator per key. The slices passed to fn are valid only during the
// call.
func (d *DB) GetManyCommitted(id StoreID, keys [][]byte, fn func(k, v []byte) bool) error {
	p, ok, err := d.known(id)
	if err != nil || !ok || len(keys) == 0 {
		return err
	}
	pdb, done, err := d.use()
	if err != nil {
		return err
	}
	defer done()
	snap, interval, err := committedView(pdb, p)
	if err != nil {
		return fmt.Errorf("state: read %s: %w", id, err)
	}
	defer snap.Close()
	it, err := snap.NewIter(&pebble.IterOptions{LowerBound: p.prefix.data(), UpperBound: p.prefix.dataEnd()})
	if err != nil {
		return fmt.Errorf("state: read %s: %w", id, err)
	}
	defer it.Close()
	seek := make([]byte, 0, 64)
	for _, k := range keys {
		seek = p.prefix.appendFullKey(seek[:0], k, interval)
		if !it.SeekGE(seek) {
			if interval == 0 {
				break // past the last entry: no later key is present
			}
			continue // segments are not in key order: a later key may be in an earlier one
		}
		if bytes.Equal(it.Key(), seek) && !fn(k, it.Value()) {
			break
		}
	}
	return it.Error()
}
