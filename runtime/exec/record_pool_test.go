package exec

import (
	"bytes"
	"sync"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestRecordPoolNeverHandsOutAHeldRecord: records taken by several
// tasks at once and held by a "client" goroutine until it checks their
// bytes and puts them back (as franz-go's promise does) are never handed
// out again while held: every held record still carries the bytes it was
// given, no record is handed out twice before it is put back, and under -race a record handed out early would be a race between
// the task writing it and the client reading it.
func TestRecordPoolNeverHandsOutAHeldRecord(t *testing.T) {
	var p recordPool
	const tasks, perTask = 3, 4000
	inFlight := make(chan *pooledRecord, 512)
	var outMu sync.Mutex
	out := map[*pooledRecord]bool{} // handed out and not yet put back
	var twice []int64
	var wg sync.WaitGroup
	for task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perTask {
				r := p.get(8 + i%64)
				outMu.Lock()
				if out[r] {
					twice = append(twice, int64(task*perTask+i))
				}
				out[r] = true
				outMu.Unlock()
				for j := range r.buf {
					r.buf[j] = byte(task*perTask + i + j)
				}
				r.Offset = int64(task*perTask + i)
				r.Value = r.buf
				inFlight <- r
			}
		}()
	}
	go func() { wg.Wait(); close(inFlight) }()
	seen := 0
	held := make([]*pooledRecord, 0, 256)
	check := func() {
		for _, r := range held {
			want := make([]byte, len(r.Value))
			for j := range want {
				want[j] = byte(int(r.Offset) + j)
			}
			if !bytes.Equal(r.Value, want) {
				t.Fatalf("record %d changed while held: %v, want %v", r.Offset, r.Value, want)
			}
			outMu.Lock()
			delete(out, r)
			outMu.Unlock()
			p.put(&r.Record)
		}
		held = held[:0]
	}
	for r := range inFlight {
		seen++
		if held = append(held, r); len(held) == cap(held) {
			check()
		}
	}
	check()
	if len(twice) > 0 {
		t.Fatalf("%d records were handed out while held (the first for record %d)", len(twice), twice[0])
	}
	if seen != tasks*perTask {
		t.Fatalf("%d records came through, want %d", seen, tasks*perTask)
	}
}

// TestRecordPoolIsBounded: the records kept are at most maxFreeRecords
// and maxFreeBytes of buffers a stack, a buffer over maxKeptBuf is never
// kept, and what is kept comes back (LIFO: the last put first).
func TestRecordPoolIsBounded(t *testing.T) {
	var p recordPool
	rs := make([]*pooledRecord, maxFreeRecords+100)
	for i := range rs {
		rs[i] = p.get(16)
	}
	for _, r := range rs {
		p.put(&r.Record)
	}
	if n := len(p.back); n != maxFreeRecords {
		t.Errorf("%d records kept of %d, want maxFreeRecords %d", n, len(rs), maxFreeRecords)
	}
	if r := p.get(16); r != rs[maxFreeRecords-1] {
		t.Errorf("get did not return the last record kept")
	}
	if len(p.ready) != maxFreeRecords-1 || len(p.back) != 0 || p.backBytes != 0 {
		t.Errorf("after a get: %d ready, %d back (%d bytes), want %d, 0, 0", len(p.ready), len(p.back), p.backBytes, maxFreeRecords-1)
	}

	var q recordPool
	big := make([]*pooledRecord, 2*maxFreeBytes/maxKeptBuf)
	for i := range big {
		big[i] = q.get(maxKeptBuf)
	}
	huge := q.get(maxKeptBuf + 1)
	for _, r := range big {
		q.put(&r.Record)
	}
	q.put(&huge.Record)
	if q.backBytes > maxFreeBytes || len(q.back) != maxFreeBytes/maxKeptBuf+1 {
		t.Errorf("kept %d records, %d bytes; want %d and at most %d", len(q.back), q.backBytes, maxFreeBytes/maxKeptBuf+1, maxFreeBytes)
	}
	if r := q.back[len(q.back)-1]; r != huge || r.buf != nil {
		t.Errorf("the record over maxKeptBuf was not kept without its buffer")
	}
}

// BenchmarkOutRecordsHandOff is the runner's output records as q0 uses
// them: a task takes a record for each Nexmark bid's output, and the
// client's promise goroutine puts them back in batches of 256.
func BenchmarkOutRecordsHandOff(b *testing.B) {
	var o outRecords
	value := bytes.Repeat([]byte("x"), 180)
	rec := &physical.OutRecord{Topic: "out", Partition: -1, Value: value, Timestamp: 1}
	batches := make(chan []*kgo.Record, 8)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for batch := range batches {
			for _, kr := range batch {
				o.put(kr)
			}
		}
	}()
	b.ReportAllocs()
	batch := make([]*kgo.Record, 0, 256)
	for b.Loop() {
		if batch = append(batch, o.get(rec)); len(batch) == cap(batch) {
			batches <- batch
			batch = make([]*kgo.Record, 0, 256)
		}
	}
	close(batches)
	<-done
}
