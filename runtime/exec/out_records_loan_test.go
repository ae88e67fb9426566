package exec

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"unsafe"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// encodeInto writes key and value into loan's buffer as the sink does
// (the value right after the key, the key's capacity cut to its length)
// and returns the record to emit with the loan.
func encodeInto(loan physical.Loan, key, value string) *physical.OutRecord {
	return encodeIn(&physical.OutRecord{}, loan, key, value)
}

// encodeIn is encodeInto filling rec (the sink's, reused).
func encodeIn(rec *physical.OutRecord, loan physical.Loan, key, value string) *physical.OutRecord {
	b := append(loan.LentBuf(), key...)
	k := b[:len(key):len(key)]
	v := append(b[len(key):len(key)], value...)
	*rec = physical.OutRecord{Topic: "out", Partition: -1, Key: k, Value: v, Timestamp: 3, Loan: loan}
	return rec
}

func sameBytes(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// TestOutputRecordsFromALoanAreNotCopied: a record the sink encoded into
// the buffer the runner lent it is produced as the lent record itself,
// its key and value where the sink wrote them (nothing copied), a
// windowed key's inner key still placing it by a length; once recycled,
// a lend, encode and produce costs no allocation. A record that outgrew
// its loan (its value elsewhere), one with headers and one whose bytes are
// all elsewhere are copied, into a buffer none of their bytes is in, and
// stay right when their sources change.
func TestOutputRecordsFromALoanAreNotCopied(t *testing.T) {
	var o outRecords
	loan := o.lend(64)
	rec := encodeInto(loan, "user_1+window", `{"N":1}`)
	rec.PartitionKey = rec.Key[:6]
	kr := o.get(rec)
	if unsafe.Pointer(kr) != unsafe.Pointer(loan.(*pooledRecord)) {
		t.Fatalf("the record produced is not the one lent")
	}
	if !sameBytes(kr.Key, rec.Key) || !sameBytes(kr.Value, rec.Value) || string(kr.Key) != "user_1+window" || string(kr.Value) != `{"N":1}` {
		t.Errorf("record %q %q, want the sink's own bytes user_1+window {\"N\":1}", kr.Key, kr.Value)
	}
	if pk, ok := placement(kr); !ok || string(pk) != "user_1" || kr.Context != keyPrefix(6) || kr.Timestamp.UnixMilli() != 3 {
		t.Errorf("placed by %q (%v, context %v) at %d, want the key's first 6 bytes at 3", pk, ok, kr.Context, kr.Timestamp.UnixMilli())
	}
	o.put(kr)

	var reused physical.OutRecord
	allocs := testing.AllocsPerRun(100, func() {
		l := o.lend(32)
		kr := o.get(encodeIn(&reused, l, "user_2", `{"N":2}`))
		if string(kr.Value) != `{"N":2}` {
			t.Fatalf("value %q", kr.Value)
		}
		o.put(kr)
	})
	if allocs > 0 {
		t.Errorf("a lent output record costs %.1f allocations, want 0", allocs)
	}

	outgrown := encodeInto(o.lend(8), "user_3", "")
	outgrown.Value = []byte(`{"N":3, "and":"a value that did not fit"}`) // the encoder's append moved it
	lentBuf := outgrown.Loan.(*pooledRecord).buf
	kr = o.get(outgrown)
	outgrown.Key[0], outgrown.Value[0] = 'X', 'X'
	if string(kr.Key) != "user_3" || string(kr.Value) != `{"N":3, "and":"a value that did not fit"}` || within(lentBuf, kr.Key) {
		t.Errorf("outgrown record %q %q (in the old loan: %v)", kr.Key, kr.Value, within(lentBuf, kr.Key))
	}
	o.put(kr)

	withHeaders := encodeInto(o.lend(64), "user_4", `{"N":4}`)
	withHeaders.Headers = []physical.Header{{Key: "trace", Value: []byte("t1")}}
	kr = o.get(withHeaders)
	withHeaders.Key[0] = 'X'
	if string(kr.Key) != "user_4" || string(kr.Value) != `{"N":4}` || len(kr.Headers) != 1 || string(kr.Headers[0].Value) != "t1" {
		t.Errorf("record with headers %q %q %q", kr.Key, kr.Value, kr.Headers)
	}
	o.put(kr)

	elsewhere := &physical.OutRecord{Topic: "out", Partition: -1, Key: []byte("user_5"), Value: []byte(`{"N":5}`), Loan: o.lend(64)}
	kr = o.get(elsewhere)
	if string(kr.Key) != "user_5" || string(kr.Value) != `{"N":5}` || sameBytes(kr.Key, elsewhere.Key) ||
		unsafe.Pointer(kr) != unsafe.Pointer(elsewhere.Loan.(*pooledRecord)) {
		t.Errorf("record written elsewhere %q %q: want a copy in its loan's record", kr.Key, kr.Value)
	}
	o.put(kr)

	nulls := &physical.OutRecord{Topic: "out", Partition: -1, Loan: o.lend(16)}
	kr = o.get(nulls)
	if kr.Key != nil || kr.Value != nil {
		t.Errorf("a null key and a tombstone became %q %q", kr.Key, kr.Value)
	}
	o.put(kr)
}

// TestLentRecordsAreNeverHandedOutWhileHeld: three tasks borrow records,
// encode into them and produce them (some copied without a loan, as the
// repartition sinks' are) while a client goroutine holds them until it
// checks their bytes and calls back: no record is lent or handed out
// again before its callback, every held record keeps its bytes, and
// under -race a record lent early would be a race between the task
// encoding into it and the client reading it.
func TestLentRecordsAreNeverHandedOutWhileHeld(t *testing.T) {
	var o outRecords
	const tasks, perTask = 3, 3000
	inFlight := make(chan *kgo.Record, 512)
	var outMu sync.Mutex
	out := map[*kgo.Record]bool{}
	var twice []string
	var wg sync.WaitGroup
	for task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perTask {
				key, value := fmt.Sprintf("t%d-%d", task, i), fmt.Sprintf(`{"N":%d,"pad":%q}`, i, bytes.Repeat([]byte("x"), i%50))
				var kr *kgo.Record
				if i%5 == 0 {
					kr = o.get(&physical.OutRecord{Topic: "out", Partition: -1, Key: []byte(key), Value: []byte(value)})
				} else {
					kr = o.get(encodeInto(o.lend(len(key)+len(value)), key, value))
				}
				outMu.Lock()
				if out[kr] {
					twice = append(twice, key)
				}
				out[kr] = true
				outMu.Unlock()
				inFlight <- kr
			}
		}()
	}
	go func() { wg.Wait(); close(inFlight) }()
	held := make([]*kgo.Record, 0, 256)
	seen := 0
	check := func() {
		for _, kr := range held {
			var task, i int
			if _, err := fmt.Sscanf(string(kr.Key), "t%d-%d", &task, &i); err != nil {
				t.Fatalf("key %q: %v", kr.Key, err)
			}
			if want := fmt.Sprintf(`{"N":%d,"pad":%q}`, i, bytes.Repeat([]byte("x"), i%50)); string(kr.Value) != want {
				t.Fatalf("record %q changed while held: %s, want %s", kr.Key, kr.Value, want)
			}
			outMu.Lock()
			delete(out, kr)
			outMu.Unlock()
			o.put(kr)
		}
		held = held[:0]
	}
	for kr := range inFlight {
		seen++
		if held = append(held, kr); len(held) == cap(held) {
			check()
		}
	}
	check()
	if len(twice) > 0 {
		t.Fatalf("%d records were handed out while held (the first %s)", len(twice), twice[0])
	}
	if seen != tasks*perTask {
		t.Fatalf("%d records came through, want %d", seen, tasks*perTask)
	}
}

// TestHeldOutputsKeepTheirLoans: under at_least_once a stateful task's
// outputs are held till the release (heldOutput), each the record its
// loan was: the records lent while others are held are never a held
// one, the held ones are produced in order with the bytes they were
// encoded with; an exactly_once_v2 abort fails the promises of what the
// transaction produced, and those records go back to the pool all the
// same, the failure kept for the commit, and come back clean. A held
// output converting with ToKgo (which keeps the bytes) lends nothing.
func TestHeldOutputsKeepTheirLoans(t *testing.T) {
	r := &kafkaRunner{}
	var produced []*kgo.Record
	h := &heldOutput{produce: func(kr *kgo.Record) { produced = append(produced, kr) }, record: r.outRecord, lend: r.Lend, limit: 1 << 30}
	var lender physical.BufferLender = h
	heldRecs := map[*kgo.Record]bool{}
	for i := range 100 {
		loan := lender.Lend(32)
		for kr := range heldRecs {
			if unsafe.Pointer(kr) == unsafe.Pointer(loan.(*pooledRecord)) {
				t.Fatalf("record %d: lent a held record", i)
			}
		}
		h.Emit(encodeInto(loan, fmt.Sprint("k", i), fmt.Sprintf(`{"N":%d}`, i)))
		heldRecs[h.recs[len(h.recs)-1]] = true
	}
	h.flush()
	if len(produced) != 100 {
		t.Fatalf("%d records produced, want 100", len(produced))
	}
	for i, kr := range produced {
		if string(kr.Key) != fmt.Sprint("k", i) || string(kr.Value) != fmt.Sprintf(`{"N":%d}`, i) {
			t.Fatalf("record %d is %q %q", i, kr.Key, kr.Value)
		}
	}
	for _, kr := range produced {
		r.onEmitted(kr, errors.New("the transaction was aborted"))
	}
	if r.emitErr == nil {
		t.Fatal("the aborted outputs' failure was not kept for the commit")
	}
	for i := range 10 {
		loan := lender.Lend(32)
		rec := encodeInto(loan, "", "v")
		rec.Key = nil
		kr := r.outRecord(rec)
		if !heldRecs[kr] && i == 0 {
			t.Errorf("the aborted records were not recycled")
		}
		if kr.Key != nil || string(kr.Value) != "v" || kr.Context != nil || len(kr.Headers) != 0 || kr.Partition != 0 {
			t.Fatalf("recycled record %+v", kr)
		}
		r.onEmitted(kr, nil)
	}
	if l := (&heldOutput{produce: h.produce}).Lend(32); l != nil {
		t.Errorf("a held output keeping the bytes (ToKgo) lent %v", l)
	}
}

// BenchmarkOutRecordsEncodeHandOff is a keyless ~180-byte output (a
// Nexmark bid's, written in six pieces as the JSON encoder appends its
// members) encoded and made into the runner's record, the client's
// promise goroutine putting the records back in batches of 256:
// "copied" encodes into the sink's own buffer and copies it into the
// record's (no loan: the repartition sinks'), "lent" into the buffer the
// runner lent (the sink's).
func BenchmarkOutRecordsEncodeHandOff(b *testing.B) {
	piece := bytes.Repeat([]byte("x"), 30)
	encode := func(dst []byte) []byte {
		for range 6 {
			dst = append(dst, piece...)
		}
		return dst
	}
	for _, lend := range []bool{false, true} {
		name := map[bool]string{false: "copied", true: "lent"}[lend]
		b.Run(name, func(b *testing.B) {
			var o outRecords
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
			own := make([]byte, 0, 256)
			var rec physical.OutRecord
			b.ReportAllocs()
			batch := make([]*kgo.Record, 0, 256)
			for b.Loop() {
				rec = physical.OutRecord{Topic: "out", Partition: -1, Timestamp: 1}
				if lend {
					rec.Loan = o.lend(256)
					rec.Value = encode(rec.Loan.LentBuf())
				} else {
					rec.Value = encode(own[:0])
				}
				if batch = append(batch, o.get(&rec)); len(batch) == cap(batch) {
					batches <- batch
					batch = make([]*kgo.Record, 0, 256)
				}
			}
			close(batches)
			<-done
		})
	}
}
