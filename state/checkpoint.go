package state

import (
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Checkpoint records that the local state of id holds every changelog
// record before offset (Kafka's next-offset convention: a restart restores
// from offset on). Call it after Flush, with the end offset of the
// changelog records that Flush produced.
//
// If the partition's Store has writes not yet committed (some of which may
// be below offset), the checkpoint joins that batch and becomes durable
// atomically with them at the next Flush; otherwise it is written at once.
// Either way a durable checkpoint never runs ahead of durable data.
func (d *DB) Checkpoint(id StoreID, offset int64) error {
	return d.checkpoint(id, offset, d.wopt)
}

func (d *DB) checkpoint(id StoreID, offset int64, o *pebble.WriteOptions) error {
	if offset < 0 {
		return fmt.Errorf("state: checkpoint %s: offset %d must be >= 0", id, offset)
	}
	if o := d.owner(id); o != nil && o.stageCheckpoint(offset) {
		return nil
	}
	p, err := d.partition(id)
	if err != nil {
		return err
	}
	if err := d.write("checkpoint "+id.String(), o.GetSync(), func(pdb *pebble.DB) error { return pdb.Set(p.prefix.meta(ckptTag), encodeInt64(offset), o) }); err != nil {
		return fmt.Errorf("state: checkpoint %s: %w", id, err)
	}
	return nil
}

// Checkpointed returns the last durable checkpoint of id; ok is false when
// there is none (never checkpointed, or wiped): restore from the start.
func (d *DB) Checkpointed(id StoreID) (offset int64, ok bool) {
	p, found, err := d.known(id)
	if !found || err != nil {
		return 0, false
	}
	v, err := d.readValue(p.prefix.meta(ckptTag))
	if err != nil || v == nil {
		return 0, false
	}
	offset, err = decodeInt64(v)
	return offset, err == nil
}
