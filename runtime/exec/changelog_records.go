package exec

import (
	"sync"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"
)

// changelogRecords recycles a runner's changelog records once
// acknowledged, each with the buffer its key and value were copied into
// (the store reuses its own): an exactly-once commit or an at-least-once
// release writes most cached keys down, a record each, and the copy was
// an allocation per record.
type changelogRecords struct{ pool sync.Pool }

// changelogRec is a changelog record and its buffer. The record is the
// first field, so the *kgo.Record handed to the client is the
// changelogRec's address (put takes it back).
type changelogRec struct {
	kgo.Record
	buf []byte
}

// get returns the record of a store write for its changelog partition
// (changelogRecord), its key and value copied into a recycled buffer.
func (c *changelogRecords) get(topic string, p int32, key, value []byte, ts int64) *kgo.Record {
	r, _ := c.pool.Get().(*changelogRec)
	if r == nil {
		r = new(changelogRec)
	}
	if n := len(key) + len(value); r.buf == nil || cap(r.buf) < n {
		r.buf = make([]byte, n) // never nil: an empty value is not a tombstone
	} else {
		r.buf = r.buf[:n]
	}
	return changelogRecordIn(&r.Record, r.buf, topic, p, key, value, ts)
}

// put recycles a record get returned, once the client is done with it
// (its promise ran): nothing else keeps its key, value or buffer.
func (c *changelogRecords) put(kr *kgo.Record) {
	r := (*changelogRec)(unsafe.Pointer(kr))
	r.Record = kgo.Record{}
	c.pool.Put(r)
}
