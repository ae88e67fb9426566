package state

import "fmt"

// ApproxSize estimates the on-disk bytes of id's data (Pebble's
// EstimateDiskUsage over its prefix: flushed tables only, so recent writes
// still in the memtable are not counted) and returns the committed key
// count the stores keep. Unknown ids are 0, 0.
func (d *DB) ApproxSize(id StoreID) (bytes int64, keys int64, err error) {
	p, ok, err := d.known(id)
	if !ok || err != nil {
		return 0, 0, err
	}
	pdb, done, err := d.use()
	if err != nil {
		return 0, 0, err
	}
	defer done()
	n, err := pdb.EstimateDiskUsage(p.prefix.data(), p.prefix.dataEnd())
	if err != nil {
		return 0, 0, fmt.Errorf("state: size of %s: %w", id, err)
	}
	return int64(n), p.keys.Load(), nil
}
