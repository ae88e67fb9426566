package exec

import (
	"sync"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"
)

// recordPool recycles franz-go records once the client called their
// promise, each with the buffer the bytes it carries were copied into:
// the runner's changelog records (changelogRecords) and its output and
// repartition records (outRecords) are copies of bytes their writers
// reuse, and a copy of a record's few hundred bytes is cheaper than an
// allocation per record and the collector's share of it.
type recordPool struct{ pool sync.Pool }

// pooledRecord is a record and its buffer. The record is the first
// field, so the *kgo.Record handed to the client is the pooledRecord's
// address (put takes it back).
type pooledRecord struct {
	kgo.Record
	buf []byte
}

// maxKeptBuf is the largest buffer put keeps with its record: an
// occasional large record's buffer is left to the collector rather than
// kept by the pool for the small ones after it.
const maxKeptBuf = 16 << 10

// get returns a recycled record (or a new one) whose buf holds n bytes,
// never nil: an empty value is not a tombstone.
func (p *recordPool) get(n int) *pooledRecord {
	r, _ := p.pool.Get().(*pooledRecord)
	if r == nil {
		r = new(pooledRecord)
	}
	if r.buf == nil || cap(r.buf) < n {
		r.buf = make([]byte, n)
	} else {
		r.buf = r.buf[:n]
	}
	return r
}

// put recycles a record get returned, once the client is done with it
// (its promise ran): nothing else keeps its bytes. The headers' room and
// the buffer stay with it.
func (p *recordPool) put(kr *kgo.Record) {
	r := (*pooledRecord)(unsafe.Pointer(kr))
	r.Record = kgo.Record{Headers: kr.Headers[:0]}
	if cap(r.buf) > maxKeptBuf {
		r.buf = nil
	}
	p.pool.Put(r)
}
