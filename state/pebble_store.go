package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/cockroachdb/pebble/v2"
)

// maxBatchBytes bounds the uncommitted batch of one store: past it the
// batch is committed early (without sync). That is safe, since a staged
// checkpoint only ever lags the data, but it means writes may become
// durable before Flush.
const maxBatchBytes = 64 << 20

// pebbleStore is the bottom layer: the partition's key space in the DB.
// Writes collect in a batch that Flush commits with the key count and any
// staged checkpoint. Point reads see the batch through pending; a Range
// commits it first (an indexed batch would let scans see it, but indexing
// costs a skiplist insert per write, on the path of every record).
type pebbleStore struct {
	db   *DB
	part *partition

	mu    sync.Mutex // guards the fields below; Checkpoint may come from another goroutine
	batch *pebble.Batch
	// pending mirrors the batch's point writes (nil value: deleted), so a
	// point read that misses it goes straight to the DB's point lookup
	// instead of a merged batch+DB iterator.
	pending map[string][]byte
	// pendingHint sizes the next pending map: the last one's size, so a
	// transaction's flush does not rehash it as it grows.
	pendingHint int
	// untracked is set during a cache flush: its writes stay out of
	// pending (see flushWriter).
	untracked bool
	// hiding is set while the cache writes back (WriteCached) into a
	// store that is not transactional: its writes stay out of pending
	// too, and mark the batch hidden, so a point read that may need them
	// commits the batch first (write_cached.go).
	hiding, hidden bool
	// unmirrored: the uncommitted batch of a transactional store holds
	// untracked writes, so pending no longer mirrors it and point reads
	// go through the batch, indexed (see readsUnmirrored).
	unmirrored bool
	// txn: a transactional store (Transactional): the batch is committed
	// only by commitTransaction, and indexed from its first Range on
	// (indexedForRange).
	txn bool
	// spent holds the unindexed batches indexedForRange copied: pending
	// points into their buffers until the batch is committed or dropped.
	spent []*pebble.Batch
	delta int64 // key count change in batch
	// keyBuf holds the full key of the call in progress (s.mu held): the
	// layers below copy what they keep.
	keyBuf []byte
	ckpt   []byte
	closed bool
	// pdb is the DB's Pebble DB, held for the call in progress (enter),
	// done what releases it; exitFn is exit, made once.
	pdb    *pebble.DB
	done   func()
	exitFn func()
	// gen is the DB generation the store last saw, lastWrite the number
	// of its last commit, lost its failure once a reopen lost what it
	// wrote (reopen.go).
	gen       int
	lastWrite uint64
	lost      error
	// lookups counts the existence lookups of writes that went to
	// Pebble (the key in neither the batch nor ruled out by the filter).
	lookups int64
	// sorter puts a committed batch in key order (sorted_batch.go).
	sorter batchSorter
	// emptyBelow: in a segmented partition, the segments below it hold
	// no key (this store's purge emptied them and nothing was written
	// there since), so its scans start there instead of stepping over
	// the purged keys' tombstones until compactions drop them.
	emptyBelow uint64
}

var (
	_ Store  = (*pebbleStore)(nil)
	_ purger = (*pebbleStore)(nil)
)

var errStoreClosed = errors.New("state: store is closed")

// Get reads key through the pending batch.
func (s *pebbleStore) Get(key []byte) ([]byte, error) {
	exit, err := s.enter()
	if err != nil {
		return nil, err
	}
	defer exit()
	return s.get(s.fullKey(key))
}

// fullKey is key in the partition's key space, in keyBuf: valid until the
// next call, under s.mu.
func (s *pebbleStore) fullKey(key []byte) []byte {
	s.keyBuf = s.part.prefix.appendFullKey(s.keyBuf[:0], key, s.part.segment.Load())
	return s.keyBuf
}

// get reads a full key: the batch's pending write if any, else the DB
// unless the key was never written.
func (s *pebbleStore) get(k []byte) ([]byte, error) {
	if s.unmirrored {
		return s.getUnmirrored(k)
	}
	if err := s.revealFor(k); err != nil {
		return nil, err
	}
	if v, ok := s.pending[string(k)]; ok {
		return bytes.Clone(v), nil
	}
	if s.neverWritten(k) {
		return nil, nil
	}
	return getFrom(s.pdb, k)
}

// neverWritten reports that the partition's filter knows k was never
// written, so it is absent without a lookup.
func (s *pebbleStore) neverWritten(k []byte) bool {
	if f := s.part.filter; f == nil || f.mayContain(k) {
		return false
	}
	if invariants {
		s.checkAbsent(k)
	}
	return true
}

// Put writes key into the pending batch, keeping the key count.
func (s *pebbleStore) Put(key, value []byte) error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	if err := s.write(s.fullKey(key), value); err != nil {
		return fmt.Errorf("state: put %s: %w", s.part.id, err)
	}
	if !s.txn && s.batch.Len() > maxBatchBytes {
		return s.commit(pebble.NoSync)
	}
	return nil
}

func (s *pebbleStore) write(k, value []byte) error {
	s.ensureBatch()
	existed, err := s.exists(k)
	if err != nil {
		return err
	}
	return s.writeKnown(k, value, existed)
}

// writeKnown writes k into the batch given whether it exists, keeping the
// key count.
func (s *pebbleStore) writeKnown(k, value []byte, existed bool) error {
	s.ensureBatch()
	if s.pending == nil {
		s.pending = make(map[string][]byte, s.pendingHint)
	}
	switch {
	case value == nil && existed:
		s.delta--
		s.unmirrored = s.unmirrored || s.untracked && s.txn
		s.hidden = s.hidden || s.hiding
		if s.tracks() {
			s.pending[string(k)] = nil
		}
		return s.batch.Delete(k, nil)
	case value == nil:
		return nil
	case !existed:
		s.delta++
	}
	if s.emptyBelow != 0 && len(k) >= segmentHead {
		s.emptyBelow = min(s.emptyBelow, binary.BigEndian.Uint64(k[5:segmentHead]))
	}
	// A key that exists was added when it was first written (or by the
	// scan that built the filter): only new keys need adding.
	if f := s.part.filter; f != nil && !existed && !f.add(k) {
		s.part.filter = nil // too many keys to be worth the memory
	}
	// The batch copies the key and value; pending keeps the batch's
	// copies (the key as a string over its bytes, not a copy of its own),
	// which stay put until the batch is committed or closed, when pending
	// is dropped (a growing batch moves to a new buffer, the old one
	// stays).
	op := s.batch.SetDeferred(len(k), len(value))
	copy(op.Key, k)
	copy(op.Value, value)
	s.unmirrored = s.unmirrored || s.untracked && s.txn
	s.hidden = s.hidden || s.hiding
	if s.tracks() {
		s.pending[batchString(op.Key)] = op.Value[:len(value):len(value)]
	}
	return op.Finish()
}

// ensureBatch starts the pending batch, unindexed: point reads go
// through pending, and a transactional store indexes it only when a Range
// needs to see it (indexedForRange).
func (s *pebbleStore) ensureBatch() {
	if s.batch == nil {
		s.batch = s.pdb.NewBatch()
	}
}

func (s *pebbleStore) exists(k []byte) (bool, error) {
	if s.unmirrored {
		v, err := s.getUnmirrored(k)
		return v != nil, err
	}
	if err := s.revealFor(k); err != nil {
		return false, err
	}
	if v, ok := s.pending[string(k)]; ok {
		return v != nil, nil
	}
	if s.neverWritten(k) {
		return false, nil
	}
	s.lookups++
	_, c, err := s.pdb.Get(k)
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, c.Close()
}

// Range iterates the partition's data through the pending batch, in
// key order in either layout (window_segments.go).
func (s *pebbleStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	newIter, err := s.source()
	if err != nil {
		return err
	}
	return iterate(newIter, s.part.prefix, s.part.segment.Load(), s.emptyBelow, start, end, fn)
}

// source opens iterators over the committed data and the pending batch.
// A transactional store's batch is indexed, so its iterators merge it;
// otherwise (point reads go through pending instead) the batch is
// committed first, without sync: data ahead of its checkpoint, as with an
// early commit past maxBatchBytes. s.mu is held.
func (s *pebbleStore) source() (newIterFunc, error) {
	if s.batch == nil || s.batch.Empty() {
		return s.pdb.NewIter, nil
	}
	if s.txn {
		if err := s.indexedForRange(); err != nil {
			return nil, err
		}
		return s.batch.NewIter, nil
	}
	if err := s.commit(pebble.NoSync); err != nil {
		return nil, err
	}
	return s.pdb.NewIter, nil
}

// Flush commits the pending batch, unless the store is transactional
// (then commitTransaction does).
func (s *pebbleStore) Flush() error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	if s.txn {
		return nil
	}
	return s.commit(s.db.wopt)
}

// commit writes the key count and staged checkpoint into the batch and
// commits it, its records in key order (batchSorter); s.mu is held.
func (s *pebbleStore) commit(o *pebble.WriteOptions) error {
	if s.batch == nil {
		return nil
	}
	b, delta := s.sorter.sorted(s.pdb, s.batch), s.delta
	defer b.Close()
	defer s.closeSpent()
	s.addMeta(b)
	s.pendingHint = len(s.pending)
	s.batch, s.delta, s.ckpt, s.pending, s.unmirrored, s.hidden = nil, 0, nil, nil, false, false
	n, err := s.db.writeNumbered("commit "+s.part.id.String(), o.GetSync(), func(*pebble.DB) error { return b.Commit(o) })
	if err != nil {
		err = fmt.Errorf("state: commit %s: %w (local state is behind its changelog; restore it)", s.part.id, err)
		if IsWriteFailure(err) {
			s.lost = err // what Pebble applied without logging is gone after a reopen
		}
		return err
	}
	s.lastWrite = n
	s.part.keys.Add(delta)
	if invariants {
		s.checkKeyCount()
	}
	return nil
}

// addMeta writes the new key count and the staged checkpoint into b.
func (s *pebbleStore) addMeta(b *pebble.Batch) {
	if s.delta != 0 {
		_ = b.Set(s.part.prefix.meta(countTag), encodeInt64(s.part.keys.Load()+s.delta), nil)
	}
	if s.ckpt != nil {
		_ = b.Set(s.part.prefix.meta(ckptTag), s.ckpt, nil)
	}
}

// stageCheckpoint adds the checkpoint to the pending batch, if there is
// one, so it commits atomically with the data; false when there is none.
func (s *pebbleStore) stageCheckpoint(offset int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.batch == nil {
		return false
	}
	s.ckpt = encodeInt64(offset)
	return true
}

// Close discards the pending batch and gives up ownership.
func (s *pebbleStore) Close() error {
	if !s.abort() {
		return errStoreClosed
	}
	s.db.release(s)
	return nil
}

// abort discards the pending batch; false when already closed.
func (s *pebbleStore) abort() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.closed = true
	if s.batch != nil {
		_ = s.batch.Close()
		s.batch, s.pending, s.unmirrored, s.hidden = nil, nil, false, false
	}
	s.closeSpent()
	return true
}

// purge deletes matching keys in the pending batch, without changelog.
// In a segmented partition, with windowsBefore > 0 (see purger), only the
// segments that can hold windows starting before it are visited.
func (s *pebbleStore) purge(match func(key []byte) bool, windowsBefore int64) error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	newIter, err := s.source()
	if err != nil {
		return err
	}
	var doomed [][]byte
	if interval := s.part.segment.Load(); interval != 0 && windowsBefore > 0 {
		doomed, err = s.purgeSegments(newIter, interval, windowsBefore, match)
	} else {
		p := s.part.prefix
		err = iterate(newIter, p, interval, s.emptyBelow, nil, nil, func(k, _ []byte) bool {
			if match(k) {
				doomed = append(doomed, p.appendFullKey(nil, k, interval))
			}
			return true
		})
	}
	if err != nil {
		return fmt.Errorf("state: purge %s: %w", s.part.id, err)
	}
	// Every doomed key was just read through the batch: it exists.
	for _, k := range doomed {
		if err := s.writeKnown(k, nil, true); err != nil {
			return fmt.Errorf("state: purge %s: %w", s.part.id, err)
		}
	}
	if !s.txn && s.batch != nil && s.batch.Len() > maxBatchBytes {
		return s.commit(pebble.NoSync)
	}
	return nil
}

// batchString is b, bytes of the pending batch, as a string sharing them:
// valid while the batch is open, as pending is.
func batchString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
