package state

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// ProcessID returns the identity of the process owning this data
// directory: 32 hex digits made up once and kept (synced) in the DB, so a
// restarted server has the same one. The runtime derives transactional ids
// from it, so that a restarted server fences its own dead transactions at
// once instead of waiting for them to time out.
func (d *DB) ProcessID() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return "", errClosed
	}
	v, err := d.readValue(processKey())
	if err != nil {
		return "", err
	}
	if len(v) > 0 {
		return string(v), nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	if err := d.write("process id", true, func(pdb *pebble.DB) error { return pdb.Set(processKey(), []byte(id), pebble.Sync) }); err != nil {
		return "", fmt.Errorf("state: process id: %w", err)
	}
	return id, nil
}
