package state

import (
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
	lower, upper := p.prefix.data(), p.prefix.dataEnd()
	if start != nil {
		lower = p.prefix.dataKey(start)
	}
	if end != nil {
		upper = p.prefix.dataKey(end)
	}
	pdb, done, err := d.use()
	if err != nil {
		return err
	}
	defer done()
	it, err := pdb.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return fmt.Errorf("state: read %s: %w", id, err)
	}
	defer it.Close()
	n := len(p.prefix.data())
	for it.First(); it.Valid(); it.Next() {
		if !fn(it.Key()[n:], it.Value()) {
			break
		}
	}
	return it.Error()
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
