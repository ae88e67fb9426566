package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Wipe drops everything of id in one batch: its data (a range deletion
// over its prefix), key count, checkpoint and registry entry, e.g. when
// local state is corrupt or its task moved to another server. A later
// Store of id starts empty under a new prefix and restores from the
// beginning of its changelog. The partition must not be open; wiping an
// unknown id does nothing.
func (d *DB) Wipe(id StoreID) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	p, ok := d.parts[id]
	if !ok {
		return nil
	}
	if p.owner != nil {
		return fmt.Errorf("state: wipe %s: the store is open; close it first", id)
	}
	if err := d.dropPartition(p); err != nil {
		return fmt.Errorf("state: wipe %s: %w", id, err)
	}
	delete(d.parts, id)
	return nil
}

// dropPartition deletes p's keys; d.mu is held.
func (d *DB) dropPartition(p *partition) error {
	return d.write("wipe "+p.id.String(), d.wopt.GetSync(), func(pdb *pebble.DB) error {
		b := pdb.NewBatch()
		defer b.Close()
		_ = b.DeleteRange(p.prefix.data(), p.prefix.dataEnd(), nil)
		_ = b.Delete(p.prefix.meta(ckptTag), nil)
		_ = b.Delete(p.prefix.meta(countTag), nil)
		_ = b.Delete(p.prefix.meta(segmentTag), nil)
		_ = b.Delete(registryKey(p.id), nil)
		return b.Commit(d.wopt)
	})
}
