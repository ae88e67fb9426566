package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cockroachdb/pebble/v2"
)

// Segmented layout of a window store partition (Kafka Streams'
// KeyValueSegments, in one Pebble key space): a window key
// <key><start><seq> is kept locally as
//
//	0x01 <prefix> <segment, 8 bytes big-endian> <key> <start> <seq>
//
// where segment is start / interval, the interval the partition was
// segmented with (UseSegments), kept in its metadata:
//
//	0x00 's' <prefix> → segment interval in ms (8 bytes)
//
// A partition without it has the plain layout (0x01 <prefix> <key>), as
// every store did before this one existed. Only the Pebble layer and the
// committed readers see the segment: keys above it (the cache, the
// changelog, restores, Range's callbacks) are WindowKeys, and a Range
// merges the segments back into key order, so what a scan returns is the
// same in either layout. What the segment buys is Purge: the windows
// expired are the segments before the cutoff's and the part of its own
// before it, so a purge visits those alone instead of every window.
const segmentTag byte = 's'

// segmentOf is the segment of a window key (0 for a key too short to be
// one) given a partition's interval.
func segmentOf(key []byte, interval int64) uint64 {
	if len(key) < windowSuffix {
		return 0
	}
	return binary.BigEndian.Uint64(key[len(key)-windowSuffix:]) / uint64(interval)
}

// appendSegmentKey appends the full key of key in segment seg to dst.
func (p prefix) appendSegmentKey(dst []byte, seg uint64, key []byte) []byte {
	dst = binary.BigEndian.AppendUint32(append(dst, dataTag), uint32(p))
	return append(binary.BigEndian.AppendUint64(dst, seg), key...)
}

// segmentHead is the length of a segmented full key's head: the data
// prefix and the segment.
const segmentHead = 5 + 8

// appendFullKey appends the full key of key to dst in the layout of
// interval (0: plain).
func (p prefix) appendFullKey(dst, key []byte, interval int64) []byte {
	if interval == 0 {
		return p.appendDataKey(dst, key)
	}
	return p.appendSegmentKey(dst, segmentOf(key, interval), key)
}

// newIterFunc opens an iterator over one consistent view (a DB, a
// snapshot, an indexed batch over the DB).
type newIterFunc func(*pebble.IterOptions) (*pebble.Iterator, error)

// segmentsIn lists the segments from first on of a segmented partition
// holding keys, in order: one seek per segment.
func segmentsIn(newIter newIterFunc, p prefix, first, last uint64) ([]uint64, error) {
	it, err := newIter(&pebble.IterOptions{LowerBound: p.appendSegmentKey(nil, first, nil), UpperBound: p.dataEnd()})
	if err != nil {
		return nil, err
	}
	var segs []uint64
	seek := make([]byte, 0, segmentHead)
	for ok := it.First(); ok; {
		k := it.Key()
		if len(k) < segmentHead {
			return nil, errors.Join(fmt.Errorf("state: segmented key %x is shorter than its head (corrupt store: wipe it and restore)", k), it.Close())
		}
		seg := binary.BigEndian.Uint64(k[5:segmentHead])
		if seg > last {
			break
		}
		segs = append(segs, seg)
		next := keySuccessor(p.appendSegmentKey(seek[:0], seg, nil))
		if next == nil || !bytes.HasPrefix(next, p.data()) {
			break // the last segment number
		}
		ok = it.SeekGE(next)
	}
	return segs, errors.Join(it.Error(), it.Close())
}

// rangeSegments calls fn for the keys in [start, end) (WindowKeys, nil
// unbounded) of a segmented partition's segments first to last in key
// order, as a plain one's Range would: an iterator per segment, merged.
func rangeSegments(newIter newIterFunc, p prefix, first, last uint64, start, end []byte, fn func(k, v []byte) bool) (err error) {
	segs, err := segmentsIn(newIter, p, first, last)
	if err != nil {
		return err
	}
	its := make([]*pebble.Iterator, 0, len(segs))
	defer func() {
		for _, it := range its {
			err = errors.Join(err, it.Close())
		}
	}()
	for _, seg := range segs {
		head := p.appendSegmentKey(nil, seg, nil)
		o := &pebble.IterOptions{LowerBound: append(head[:len(head):len(head)], start...), UpperBound: keySuccessor(head)}
		if end != nil {
			o.UpperBound = append(head[:len(head):len(head)], end...)
		}
		it, err := newIter(o)
		if err != nil {
			return err
		}
		if !it.First() {
			if err := errors.Join(it.Error(), it.Close()); err != nil {
				return err
			}
			continue
		}
		its = append(its, it)
	}
	for len(its) > 0 {
		best := 0
		for i := 1; i < len(its); i++ {
			if bytes.Compare(its[i].Key()[segmentHead:], its[best].Key()[segmentHead:]) < 0 {
				best = i
			}
		}
		it := its[best]
		if !fn(it.Key()[segmentHead:], it.Value()) {
			return nil
		}
		if !it.Next() {
			its = append(its[:best], its[best+1:]...)
			if err := errors.Join(it.Error(), it.Close()); err != nil {
				return err
			}
		}
	}
	return nil
}

// iterate calls fn for the partition's keys in [start, end) in key
// order, in its layout (interval 0: plain; segmented, the segments from
// first on), the keys without their head.
func iterate(newIter newIterFunc, p prefix, interval int64, first uint64, start, end []byte, fn func(k, v []byte) bool) error {
	if interval != 0 {
		return rangeSegments(newIter, p, first, math.MaxUint64, start, end, fn)
	}
	o := &pebble.IterOptions{LowerBound: p.dataKey(start), UpperBound: p.dataEnd()}
	if end != nil {
		o.UpperBound = p.dataKey(end)
	}
	it, err := newIter(o)
	if err != nil {
		return err
	}
	n := len(p.data())
	for it.First(); it.Valid(); it.Next() {
		if !fn(it.Key()[n:], it.Value()) {
			break
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// useSegments segments the partition with interval unless it already
// is (then its own interval stays: the layout is fixed once written).
// A partition holding plain keys (written before segments existed, or
// restored before the store was opened) is rewritten in one batch with
// its marker, so a crash leaves it either way whole. The pending batch
// is committed first; a transactional store must have none.
func (s *pebbleStore) useSegments(interval int64) error {
	if interval <= 0 {
		return fmt.Errorf("state: segment interval %d of %s must be > 0 (a bug in the caller)", interval, s.part.id)
	}
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	if s.part.segment.Load() != 0 {
		return nil
	}
	if s.batch != nil && !s.batch.Empty() {
		if s.txn {
			return fmt.Errorf("state: segment %s: the transaction has pending writes (segment a store before writing to it)", s.part.id)
		}
		if err := s.commit(pebble.NoSync); err != nil {
			return err
		}
	}
	p := s.part.prefix
	b := s.pdb.NewBatch()
	defer b.Close()
	var f *keyFilter
	if s.part.filter != nil {
		f = newKeyFilter()
	}
	it, err := s.pdb.NewIter(&pebble.IterOptions{LowerBound: p.data(), UpperBound: p.dataEnd()})
	if err != nil {
		return err
	}
	var buf []byte
	n := len(p.data())
	_ = b.DeleteRange(p.data(), p.dataEnd(), nil) // the Sets after it win
	for it.First(); it.Valid(); it.Next() {
		buf = p.appendSegmentKey(buf[:0], segmentOf(it.Key()[n:], interval), it.Key()[n:])
		_ = b.Set(buf, it.Value(), nil)
		if f != nil && !f.add(buf) {
			f = nil
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("state: segment %s: %w", s.part.id, err)
	}
	_ = b.Set(p.meta(segmentTag), encodeInt64(interval), nil)
	if _, err := s.db.writeNumbered("segment "+s.part.id.String(), true, func(*pebble.DB) error { return b.Commit(pebble.Sync) }); err != nil {
		return fmt.Errorf("state: segment %s: %w (its plain layout is kept; reopen the store)", s.part.id, err)
	}
	s.part.segment.Store(interval)
	s.part.filter = f
	return nil
}

// purgeSegments returns the keys that match among the segments before
// the one holding windows starting at before, and that one's: every key
// of a window starting before before is in them. The segments before
// it are empty once those are deleted (emptyBelow), unless one held a
// key that did not match. s.mu is held.
func (s *pebbleStore) purgeSegments(newIter newIterFunc, interval, before int64, match func(key []byte) bool) ([][]byte, error) {
	p := s.part.prefix
	last := segmentOf(WindowKey(nil, before, 0), interval)
	it, err := newIter(&pebble.IterOptions{
		LowerBound: p.appendSegmentKey(nil, s.emptyBelow, nil),
		UpperBound: keySuccessor(p.appendSegmentKey(nil, last, nil)),
	})
	if err != nil {
		return nil, err
	}
	var doomed [][]byte
	emptied := true
	for it.First(); it.Valid(); it.Next() {
		switch k := it.Key(); {
		case match(k[segmentHead:]):
			doomed = append(doomed, bytes.Clone(k))
		case binary.BigEndian.Uint64(k[5:segmentHead]) < last:
			emptied = false
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return nil, err
	}
	if emptied {
		s.emptyBelow = max(s.emptyBelow, last)
	}
	return doomed, nil
}

// windowRanger is implemented by every layer: Range of [start, end) for
// a caller that keeps only the WindowKeys of windows starting in
// [from, to] (WindowStore.Fetch, which skips longer keys sharing the
// key's bytes), so a segmented partition reads only the segments of
// that time range. A layer that does not implement it is ranged whole.
type windowRanger interface {
	rangeWindows(start, end []byte, from, to int64, fn func(k, v []byte) bool) error
}

func rangeWindows(s Store, start, end []byte, from, to int64, fn func(k, v []byte) bool) error {
	if r, ok := s.(windowRanger); ok {
		return r.rangeWindows(start, end, from, to, fn)
	}
	return s.Range(start, end, fn)
}

func (s *meteredStore) rangeWindows(start, end []byte, from, to int64, fn func(k, v []byte) bool) error {
	return s.rangeWith(fn, func(fn func(k, v []byte) bool) error { return rangeWindows(s.inner, start, end, from, to, fn) })
}

func (s *cachingStore) rangeWindows(start, end []byte, from, to int64, fn func(k, v []byte) bool) error {
	return s.rangeWith(start, end, fn, func(fn func(k, v []byte) bool) error { return rangeWindows(s.inner, start, end, from, to, fn) })
}

func (s *changeloggingStore) rangeWindows(start, end []byte, from, to int64, fn func(k, v []byte) bool) error {
	return rangeWindows(s.inner, start, end, from, to, fn)
}

func (s *pebbleStore) rangeWindows(start, end []byte, from, to int64, fn func(k, v []byte) bool) error {
	exit, err := s.enter()
	if err != nil {
		return err
	}
	defer exit()
	newIter, err := s.source()
	if err != nil {
		return err
	}
	interval := s.part.segment.Load()
	if interval == 0 {
		return iterate(newIter, s.part.prefix, 0, 0, start, end, fn)
	}
	first := max(s.emptyBelow, segmentOf(WindowKey(nil, max(from, 0), 0), interval))
	last := uint64(math.MaxUint64)
	if to >= 0 && to < math.MaxInt64 {
		last = segmentOf(WindowKey(nil, to, 0), interval)
	}
	return rangeSegments(newIter, s.part.prefix, first, last, start, end, fn)
}
