package state

import "fmt"

// Wipe drops the data, key count and checkpoint of id in one batch (a
// range deletion over its prefix), e.g. when local state is corrupt or
// its task moved to another server. The partition must not be open.
func (d *DB) Wipe(id StoreID) error {
	p, err := d.partition(id)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if p.owner != nil {
		return fmt.Errorf("state: wipe %s: the store is open; close it first", id)
	}
	b := d.pdb.NewBatch()
	defer b.Close()
	_ = b.DeleteRange(p.prefix.data(), p.prefix.dataEnd(), nil)
	_ = b.Delete(p.prefix.meta(ckptTag), nil)
	_ = b.Delete(p.prefix.meta(countTag), nil)
	if err := b.Commit(d.wopt); err != nil {
		return fmt.Errorf("state: wipe %s: %w", id, err)
	}
	p.keys.Store(0)
	return nil
}
