package exec

import (
	"sync"
	"unsafe"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// outRecords recycles a runner's output and repartition records once the
// client called their promise, each with the buffer the emitted key,
// value and placement bytes were copied into: the runner copies what it
// keeps (physical.BytesCopier), so a sink encodes every record into one
// buffer of its own instead of allocating one per output record, which
// the emitter kept until the promise. A copy of a record's ~100 bytes is
// cheaper than the allocation and the collector's share of it.
type outRecords struct{ pool sync.Pool }

// outRec is an output record and its buffer. The record is the first
// field, so the *kgo.Record handed to the client is the outRec's address
// (put takes it back).
type outRec struct {
	kgo.Record
	buf []byte
}

// maxKeptBuf is the largest buffer put keeps with its record: an
// occasional large record's buffer is left to the collector rather than
// kept by the pool for the small ones after it.
const maxKeptBuf = 16 << 10

// get returns rec as a franz-go record, its key, value and partition key
// copied into the recycled record's buffer (a nil slice stays nil, an
// empty one empty: a null key or a tombstone stays one) and its headers
// appended to the headers' room the record kept.
func (o *outRecords) get(rec *physical.OutRecord) *kgo.Record {
	r, _ := o.pool.Get().(*outRec)
	if r == nil {
		r = new(outRec)
	}
	c := *rec
	prefix := isPrefix(rec.PartitionKey, rec.Key)
	n := len(rec.Key) + len(rec.Value)
	if !prefix {
		n += len(rec.PartitionKey)
	}
	if r.buf == nil || cap(r.buf) < n {
		r.buf = make([]byte, n) // never nil: an empty value is not a tombstone
	}
	buf := r.buf[:n]
	c.Key, buf = copyIn(buf, rec.Key)
	c.Value, buf = copyIn(buf, rec.Value)
	if prefix {
		c.PartitionKey = c.Key[:len(rec.PartitionKey):len(rec.PartitionKey)]
	} else {
		c.PartitionKey, _ = copyIn(buf, rec.PartitionKey)
	}
	fillKgo(&r.Record, &c)
	return &r.Record
}

// put recycles a record get returned, once the client is done with it
// (its promise ran), keeping its headers' room and its buffer.
func (o *outRecords) put(kr *kgo.Record) {
	r := (*outRec)(unsafe.Pointer(kr))
	r.Record = kgo.Record{Headers: kr.Headers[:0]}
	if cap(r.buf) > maxKeptBuf {
		r.buf = nil
	}
	o.pool.Put(r)
}

// copyIn copies src to the start of buf and returns the copy (nil for a
// nil src) and the rest of buf.
func copyIn(buf, src []byte) ([]byte, []byte) {
	if src == nil {
		return nil, buf
	}
	n := len(src)
	copy(buf, src)
	return buf[:n:n], buf[n:]
}

// isPrefix reports whether pk is a non-empty prefix of key in key's own
// bytes (a windowed key's inner key: placedBy places such a record by a
// length, not by a second slice).
func isPrefix(pk, key []byte) bool {
	return len(pk) > 0 && len(pk) <= len(key) && &pk[0] == &key[0]
}
