package state

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/batchrepr"
)

const (
	// minSortedRecords is the batch size from which a commit puts the
	// batch's records in key order first (batchSorter).
	minSortedRecords = 64
	// sortIndexBits is the bits of an order word that hold the record's
	// index in its batch; the head fills the rest. A batch of more
	// records is committed as written.
	sortIndexBits = 22
	// metaRoom is room left in a sorted batch for the key count and
	// checkpoint the commit adds (addMeta), so they do not copy it.
	metaRoom = 64
)

// batchSpan is one record of a batch: the bytes [start, end) of its
// representation, its key at [key, key+keyLen).
type batchSpan struct {
	start, end, key, keyLen uint32
}

// batchSorter puts a batch's point writes in key order before its
// commit. Pebble applies a batch to the memtable (a skiplist) record by
// record, remembering where the last one went in: a record whose key
// follows the last one's is placed from there, a few nodes on, where a
// key out of order is searched for from the top of the skiplist, through
// nodes scattered over the arena. A cache's write-back comes in the
// order of its least recently written entries, which for new windows or
// new GROUP BY keys is random, so its commit paid a full skiplist search
// (and its cache misses) per record.
//
// Only batches of Sets and Deletes are reordered, stably by key: the
// records of one key keep their order, so the last still wins, and
// records of different keys do not interact. A batch holding any other
// kind (a range deletion deletes what comes before it in the batch) is
// committed as it was written. The reordered batch holds the same
// records, so what the DB holds after the commit is the same.
//
// The sort is of integers: each record's order word is the head of its
// key (the bytes after the prefix all the batch's keys share, as many
// as fit above the index) over its index in the batch. Records whose
// heads tie are then ordered by their whole keys, and by index.
type batchSorter struct {
	spans []batchSpan // reused between commits
	order []uint64
}

// sorted returns b's records in key order as a new batch (b is closed),
// or b itself when it is small or huge, already in order, or holds a
// record other than a Set or Delete.
func (bs *batchSorter) sorted(pdb *pebble.DB, b *pebble.Batch) *pebble.Batch {
	if b.Indexed() || b.Count() < minSortedRecords || b.Count() >= 1<<sortIndexBits {
		return b
	}
	repr := b.Repr()
	shared, ok := bs.read(repr)
	if !ok {
		return b
	}
	bs.sort(repr, shared)
	nb := pdb.NewBatch()
	if err := nb.SetRepr(bs.rebuilt(repr)); err != nil {
		_ = nb.Close() // cannot happen: out holds b's records
		return b
	}
	_ = b.Close()
	return nb
}

// rebuilt is repr's header and its records in bs.order.
func (bs *batchSorter) rebuilt(repr []byte) []byte {
	out := make([]byte, batchrepr.HeaderLen, len(repr)+metaRoom)
	copy(out, repr[:batchrepr.HeaderLen])
	for _, w := range bs.order {
		sp := bs.spans[w&(1<<sortIndexBits-1)]
		out = append(out, repr[sp.start:sp.end]...)
	}
	return out
}

// read fills bs.spans with repr's records and returns the length of the
// prefix their keys share; false when they are in key order already or
// one is neither a Set nor a Delete.
func (bs *batchSorter) read(repr []byte) (shared int, ok bool) {
	bs.spans = bs.spans[:0]
	r := batchrepr.Read(repr)
	inOrder := true
	var first, last []byte
	for {
		start := len(repr) - len(r)
		kind, key, _, more, err := r.Next()
		if !more || err != nil {
			return shared, err == nil && !inOrder
		}
		if kind != pebble.InternalKeyKindSet && kind != pebble.InternalKeyKindDelete {
			return 0, false
		}
		if first == nil {
			first, shared = key, len(key)
		}
		shared = commonPrefix(first[:shared], key)
		inOrder = inOrder && bytes.Compare(last, key) <= 0
		last = key
		end := len(repr) - len(r)
		bs.spans = append(bs.spans, batchSpan{start: uint32(start), end: uint32(end), key: keyOffset(repr, key), keyLen: uint32(len(key))})
	}
}

// sort fills bs.order with the spans' order words, sorted, then orders
// each run of tied heads by key and index.
func (bs *batchSorter) sort(repr []byte, shared int) {
	bs.order = bs.order[:0]
	for i, sp := range bs.spans {
		bs.order = append(bs.order, keyHead(spanKey(repr, sp)[shared:])|uint64(i))
	}
	slices.Sort(bs.order)
	for i := 0; i < len(bs.order); {
		j := i + 1
		for j < len(bs.order) && bs.order[j]>>sortIndexBits == bs.order[i]>>sortIndexBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(bs.order[i:j], func(x, y uint64) int {
				return cmp.Or(bytes.Compare(bs.key(repr, x), bs.key(repr, y)), cmp.Compare(x, y))
			})
		}
		i = j
	}
}

// keyHead is the order word of a key's bytes (after the shared prefix)
// with a zero index: its first bytes, big-endian, zeros past its end.
func keyHead(rest []byte) uint64 {
	var buf [8]byte
	copy(buf[:], rest)
	return binary.BigEndian.Uint64(buf[:]) >> sortIndexBits << sortIndexBits
}

// key is the key of the record an order word stands for.
func (bs *batchSorter) key(repr []byte, w uint64) []byte {
	return spanKey(repr, bs.spans[w&(1<<sortIndexBits-1)])
}

// commonPrefix is the length of the prefix a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// keyOffset is the offset in repr of key, a slice of it (the reader's
// slices all run to the end of repr's array).
func keyOffset(repr, key []byte) uint32 {
	return uint32(cap(repr) - cap(key))
}

func spanKey(repr []byte, sp batchSpan) []byte { return repr[sp.key : sp.key+sp.keyLen] }
