package exec

import (
	"unsafe"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// outRecords recycles a runner's output and repartition records with
// the buffer their key, value, placement and header bytes are in. It
// lends the sink the buffer of the record it will produce
// (physical.BufferLender), so the sink encodes into it and nothing is
// copied; what an operator emits without a loan (the repartition sinks,
// a record with headers, one that outgrew its loan) it copies into a
// recycled record's buffer (physical.BytesCopier), so an operator
// encodes every record into one buffer of its own instead of allocating
// one per output record, which the emitter kept until the promise.
//
// A lent record is off the pool's stacks from lend until its promise
// puts it back, as every record get returns is: it is never lent or
// handed out twice while the sink or the client holds it.
type outRecords struct{ recordPool }

// lend returns a recycled record (or a new one) whose buffer has room for
// n bytes, for an operator to encode the record into (physical.Loan).
func (o *outRecords) lend(n int) physical.Loan {
	r := o.recordPool.get(n)
	r.buf = r.buf[:0]
	return r
}

// LentBuf implements physical.Loan: the record's buffer, emptied.
func (r *pooledRecord) LentBuf() []byte { return r.buf[:0] }

// get returns rec as a franz-go record: the record rec's loan is when
// all its bytes are in the loan's buffer (nothing copied), else a
// recycled record (the loan's, when it has one) with the key, value,
// partition key and header values copied into its buffer (a nil slice
// stays nil, an empty one empty: a null key or a tombstone stays one)
// and its headers appended to the headers' room the record kept.
func (o *outRecords) get(rec *physical.OutRecord) *kgo.Record {
	r, lent := rec.Loan.(*pooledRecord)
	if lent && len(rec.Headers) == 0 && within(r.buf, rec.Key) && within(r.buf, rec.Value) && within(r.buf, rec.PartitionKey) {
		fillKgo(&r.Record, rec)
		return &r.Record
	}
	c := *rec
	c.Headers, c.Loan = nil, nil
	prefix := isPrefix(rec.PartitionKey, rec.Key)
	n := len(rec.Key) + len(rec.Value) + headerBytes(rec.Headers)
	if !prefix {
		n += len(rec.PartitionKey)
	}
	switch {
	case !lent:
		r = o.recordPool.get(n)
	case overlaps(r.buf, rec):
		r.buf = make([]byte, n) // some of what is copied is in the loan's buffer
	case cap(r.buf) < n:
		r.buf = make([]byte, n)
	default:
		r.buf = r.buf[:n]
	}
	buf := r.buf
	c.Key, buf = copyIn(buf, rec.Key)
	c.Value, buf = copyIn(buf, rec.Value)
	if prefix {
		c.PartitionKey = c.Key[:len(rec.PartitionKey):len(rec.PartitionKey)]
	} else {
		c.PartitionKey, buf = copyIn(buf, rec.PartitionKey)
	}
	fillKgo(&r.Record, &c)
	for _, h := range rec.Headers {
		var v []byte
		v, buf = copyIn(buf, h.Value)
		r.Headers = append(r.Headers, kgo.RecordHeader{Key: h.Key, Value: v})
	}
	return &r.Record
}

// within reports whether b's bytes are in buf's array (up to its
// capacity); an empty b has none to be elsewhere.
func within(buf, b []byte) bool {
	if len(b) == 0 {
		return true
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return cap(buf) > 0 && p >= start && p+uintptr(len(b)) <= start+uintptr(cap(buf))
}

// overlaps reports whether any of rec's bytes are in buf's array.
func overlaps(buf []byte, rec *physical.OutRecord) bool {
	in := func(b []byte) bool { return len(b) > 0 && within(buf, b[:1]) } // a slice is in one array
	if in(rec.Key) || in(rec.Value) || in(rec.PartitionKey) {
		return true
	}
	for _, h := range rec.Headers {
		if in(h.Value) {
			return true
		}
	}
	return false
}

// headerBytes is the bytes of hs's values.
func headerBytes(hs []physical.Header) int {
	n := 0
	for _, h := range hs {
		n += len(h.Value)
	}
	return n
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
