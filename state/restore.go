package state

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
)

// restoreCommitBytes is how much a Restorer batches before committing
// (with a checkpoint), so an interrupted restore resumes close to where it
// stopped.
const restoreCommitBytes = 4 << 20

// Restorer rebuilds a store partition from its changelog. Restore and
// Done are called by one goroutine; Progress and SetTotal are safe for
// concurrent use (status endpoints poll them).
type Restorer interface {
	// Restore applies one changelog record at offset, of timestamp ts
	// (epoch millis): straight to Pebble, never to the changelog; a nil
	// value deletes. A Restorer of a TimestampInRecord store stores ts ‖
	// value, as the store's Put was given it; others ignore ts.
	Restore(key, value []byte, ts, offset int64) error
	// SetTotal sets the number of records to restore (end offset minus
	// start offset), for Progress.
	SetTotal(total int64)
	// Progress reports records restored so far and the total.
	Progress() (restored, total int64)
	// Commit commits what was restored so far with a checkpoint after
	// the last record, keeping the partition claimed (a standby replica
	// that restores for as long as it is assigned).
	Commit() error
	// Done commits what is left with a checkpoint after the last record
	// and releases the partition for a Store. Call it also after a failed
	// Restore or an interrupted fetch: what was restored is kept.
	Done() error
}

type restorer struct {
	ps          *pebbleStore
	err         error // from claiming the partition
	restored    atomic.Int64
	total       atomic.Int64
	next        int64 // offset after the last record, -1 before any
	timestamped bool  // TimestampInRecord: values get their timestamp back
	buf         []byte
}

// Restorer claims id for restoring; the partition cannot be opened as a
// Store until Done. Errors (e.g. the store is open) surface from Restore
// and Done. Of opts only TimestampInRecord applies: pass it for a store
// opened with it, since its changelog records carry the timestamp
// outside their values.
func (d *DB) Restorer(id StoreID, opts ...StoreOption) Restorer {
	cfg := defaultStoreConfig()
	for _, o := range opts {
		o.applyStore(&cfg)
	}
	ps, err := d.claim(id)
	return &restorer{ps: ps, err: err, next: -1, timestamped: cfg.timestamped}
}

func (r *restorer) Restore(key, value []byte, ts, offset int64) error {
	if r.err != nil {
		return r.err
	}
	if offset < r.next {
		return fmt.Errorf("state: restore %s: offset %d after %d goes backwards", r.ps.part.id, offset, r.next-1)
	}
	if r.timestamped && value != nil {
		// The Pebble layer copies the value: one buffer serves every record.
		r.buf = append(binary.BigEndian.AppendUint64(r.buf[:0], uint64(ts)), value...)
		value = r.buf
	}
	if err := r.ps.Put(key, value); err != nil {
		return err
	}
	r.next = offset + 1
	r.restored.Add(1)
	if r.pending() >= restoreCommitBytes {
		return r.commit()
	}
	return nil
}

func (r *restorer) pending() int {
	r.ps.mu.Lock()
	defer r.ps.mu.Unlock()
	if r.ps.batch == nil {
		return 0
	}
	return r.ps.batch.Len()
}

// commit stages the checkpoint after the last record and commits.
func (r *restorer) commit() error {
	if r.next >= 0 {
		r.ps.stageCheckpoint(r.next)
	}
	return r.ps.Flush()
}

func (r *restorer) Commit() error {
	if r.err != nil {
		return r.err
	}
	return r.commit()
}

func (r *restorer) SetTotal(total int64) { r.total.Store(total) }

func (r *restorer) Progress() (restored, total int64) {
	return r.restored.Load(), r.total.Load()
}

func (r *restorer) Done() error {
	if r.err != nil {
		return r.err
	}
	err := r.commit()
	if cerr := r.ps.Close(); err == nil {
		err = cerr
	}
	return err
}
