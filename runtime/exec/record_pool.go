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
//
// It is a free list of the runner's own, in two stacks: the tasks take
// records from ready, the client's promises put them back on back, and a
// get that finds ready empty takes the whole of back at once. So the two
// sides meet under one lock once per batch of records, not once per
// record (a sync.Pool's Get on the task's P missed what the promise
// goroutine's P had put and stole it from that P's shard, 5–10% of q0
// through the binary), and the record handed out is the one put back last,
// whose buffer is the likeliest in cache.
//
// A record is on a stack only between its put (its promise ran: franz-go
// touches nothing of a record after it, finishRecordPromise takes the size
// first) and its next get, so it is never handed out while the client
// holds it. The stacks are bounded (maxFreeRecords, maxFreeBytes each) and
// the rest is left to the collector: what is kept is at most what was in
// flight at once, and never more than 2 × maxFreeBytes of buffers.
type recordPool struct {
	getMu sync.Mutex
	ready []*pooledRecord

	putMu     sync.Mutex
	back      []*pooledRecord
	backBytes int
}

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

// maxFreeRecords and maxFreeBytes bound each of a pool's two stacks: the
// client's default MaxBufferedRecords (10,000) is about what can be in
// flight and come back between two swaps, and 4 MiB of buffers holds that
// many Nexmark-sized records (~300 bytes) with room to spare.
const (
	maxFreeRecords = 10_000
	maxFreeBytes   = 4 << 20
)

// get returns a recycled record (or a new one) whose buf holds n bytes,
// never nil: an empty value is not a tombstone.
func (p *recordPool) get(n int) *pooledRecord {
	p.getMu.Lock()
	if len(p.ready) == 0 {
		p.putMu.Lock()
		p.ready, p.back, p.backBytes = p.back, p.ready, 0
		p.putMu.Unlock()
	}
	var r *pooledRecord
	if k := len(p.ready) - 1; k >= 0 {
		r = p.ready[k]
		p.ready[k] = nil
		p.ready = p.ready[:k]
	}
	p.getMu.Unlock()
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
// the buffer stay with it; a record over the stack's bounds is dropped.
func (p *recordPool) put(kr *kgo.Record) {
	r := (*pooledRecord)(unsafe.Pointer(kr))
	r.Record = kgo.Record{Headers: kr.Headers[:0]}
	if cap(r.buf) > maxKeptBuf {
		r.buf = nil
	}
	p.putMu.Lock()
	if len(p.back) < maxFreeRecords && p.backBytes+cap(r.buf) <= maxFreeBytes {
		p.back = append(p.back, r)
		p.backBytes += cap(r.buf)
	}
	p.putMu.Unlock()
}
