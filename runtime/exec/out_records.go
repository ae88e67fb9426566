package exec

import (
	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// outRecords recycles a runner's output and repartition records with
// the buffer the emitted key, value, placement and header bytes were
// copied into: the runner copies what it keeps (physical.BytesCopier), so a
// sink encodes every record into one buffer of its own instead of
// allocating one per output record, which the emitter kept until the
// promise.
type outRecords struct{ recordPool }

// get returns rec as a franz-go record, its key, value, partition key
// and header values copied into the recycled record's buffer (a nil
// slice stays nil, an empty one empty: a null key or a tombstone stays
// one) and its headers appended to the headers' room the record kept.
func (o *outRecords) get(rec *physical.OutRecord) *kgo.Record {
	c := *rec
	c.Headers = nil
	prefix := isPrefix(rec.PartitionKey, rec.Key)
	n := len(rec.Key) + len(rec.Value) + headerBytes(rec.Headers)
	if !prefix {
		n += len(rec.PartitionKey)
	}
	r := o.recordPool.get(n)
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
