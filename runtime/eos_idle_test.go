package runtime_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnEndStats is what /metrics says of one query's transaction ends.
type txnEndStats struct {
	n         int
	sum, peak time.Duration
}

func (f *faultRig) txnEnds(query string) txnEndStats {
	f.t.Helper()
	rec := httptest.NewRecorder()
	f.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var s txnEndStats
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		if !strings.HasPrefix(l, "sqlstream_query_transaction_end") || !strings.Contains(l, `"`+query+`"`) {
			continue
		}
		name, val, _ := strings.Cut(l, " ")
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			f.t.Fatalf("metric line %q: %v", l, err)
		}
		d := time.Duration(v * float64(time.Second))
		switch {
		case strings.HasPrefix(name, "sqlstream_query_transaction_end_seconds_count"):
			s.n = int(v)
		case strings.HasPrefix(name, "sqlstream_query_transaction_end_seconds_sum"):
			s.sum = d
		case strings.HasPrefix(name, "sqlstream_query_transaction_end_max_seconds"):
			s.peak = d
		}
	}
	return s
}

// awaitTxnEnds waits until the query's transaction ends metric reaches
// n (the runner records an end just after the commit Quiesce sees) and
// returns it.
func (f *faultRig) awaitTxnEnds(query string, n int) int {
	f.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got := f.txnEnds(query).n; got >= n || time.Now().After(deadline) {
			return got
		}
	}
}

// TestEOSIdleQueryOpensNoTransaction: an exactly_once_v2 query with
// nothing to read begins no transaction, so none has to end (franz-go
// ends one that committed no offsets only after a 500 ms pause, and an
// idle query would spend its life in those); records that come after the
// idle spell are processed as before, in transactions that end fast.
func TestEOSIdleQueryOpensNoTransaction(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.eosCounts("idle_counts", "exactly_once_v2", 2)
	const q = "CTAS_IDLE_COUNTS_1"
	time.Sleep(time.Second) // the query joins its group and polls nothing
	if s := f.txnEnds(q); s.n != 0 {
		t.Fatalf("%d transactions ended before any input (longest %v)", s.n, s.peak)
	}
	want := f.produceEvents(500, 20)
	f.awaitCounts("idle_counts", want)
	time.Sleep(300 * time.Millisecond) // a transaction ending now is no idle one
	before := f.txnEnds(q)
	time.Sleep(1500 * time.Millisecond) // 15 commit intervals
	idle := f.txnEnds(q)
	if idle.n != before.n {
		t.Errorf("%d transactions ended while the query was idle (longest ever %v)", idle.n-before.n, idle.peak)
	}
	for k, n := range f.produceEvents(500, 20) {
		want[k] += n
	}
	f.awaitCounts("idle_counts", want)
	after := f.txnEnds(q)
	if after.n == idle.n {
		t.Fatal("records after the idle spell ended no transaction")
	}
	t.Logf("%d transaction ends, mean %v, longest %v", after.n, after.sum/time.Duration(after.n), after.peak)
}

// TestEOSIdleClosingBeginsTransaction: with window.close.idle.ms the
// wall clock closes the last window of a quiet partition; under
// exactly_once_v2 the punctuation's output begins a transaction of its
// own (no record was polled for it), which commits: read_committed shows
// every window exactly once.
func TestEOSIdleClosingBeginsTransaction(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.exec(fmt.Sprintf(lessonFinal, "SET 'processing.guarantee'='exactly_once_v2'; SET 'window.close.idle.ms'='1000';"))
	base := (time.Now().UnixMilli() - 3600000) / 300000 * 300000
	var recs []*kgo.Record
	for _, m := range []int{0, 1, 4, 6, 3, 9, 12} {
		recs = append(recs, &kgo.Record{Topic: "clicks", Key: []byte("u"), Value: fmt.Appendf(nil, `{"SITE":"s","TS":%d}`, base+int64(m)*60000)})
	}
	if err := f.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// Stream time (minute 12) closes [0,5) and [5,10); [10,15) waits for
	// the wall clock.
	want := `[0={"N":4} 5={"N":2} 10={"N":1}]`
	var got []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = finalWindows(f.readTopic("FINAL_PER_WINDOW", true), base); len(got) >= 3 {
			break
		}
	}
	if fmt.Sprint(got) != want {
		t.Fatalf("final windows read_committed: %v, want %s", got, want)
	}
}

// TestEOSFalseCommitIsRedone: franz-go can end a transaction that
// carried no input offsets with an abort and report it committed (it
// believed none of its produces succeeded). The broker here does the
// same to the first such commit of the query (a wall-clock punctuation
// closing the last window): the runner reads the transaction's record
// back, finds it missing, rejoins and closes the window again, so
// read_committed shows every window exactly once.
func TestEOSFalseCommitIsRedone(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	var mu sync.Mutex
	withOffsets := map[string]bool{} // transactional id → its open transaction carries offsets
	turned := 0
	markOffsets := func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		switch r := req.(type) {
		case *kmsg.TxnOffsetCommitRequest:
			withOffsets[r.TransactionalID] = len(r.Topics) > 0 || withOffsets[r.TransactionalID]
		case *kmsg.AddOffsetsToTxnRequest:
			withOffsets[r.TransactionalID] = true
		}
		return nil, nil, false
	}
	f.c.ControlKey(int16(kmsg.TxnOffsetCommit), markOffsets)
	f.c.ControlKey(int16(kmsg.AddOffsetsToTxn), markOffsets)
	f.c.ControlKey(int16(kmsg.EndTxn), func(req kmsg.Request) (kmsg.Response, error, bool) {
		f.c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		r := req.(*kmsg.EndTxnRequest)
		if r.Commit && !withOffsets[r.TransactionalID] && turned == 0 && strings.Contains(r.TransactionalID, "FINAL_PER_WINDOW") {
			r.Commit = false
			turned++
		}
		delete(withOffsets, r.TransactionalID)
		return nil, nil, false
	})
	f.exec(fmt.Sprintf(lessonFinal, "SET 'processing.guarantee'='exactly_once_v2'; SET 'window.close.idle.ms'='1000';"))
	base := (time.Now().UnixMilli() - 3600000) / 300000 * 300000
	var recs []*kgo.Record
	for _, m := range []int{0, 1, 4, 6, 3, 9, 12} {
		recs = append(recs, &kgo.Record{Topic: "clicks", Key: []byte("u"), Value: fmt.Appendf(nil, `{"SITE":"s","TS":%d}`, base+int64(m)*60000)})
	}
	if err := f.cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	want := `[0={"N":4} 5={"N":2} 10={"N":1}]`
	var got []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = finalWindows(f.readTopic("FINAL_PER_WINDOW", true), base); len(got) >= 3 {
			break
		}
	}
	mu.Lock()
	n := turned
	mu.Unlock()
	if n != 1 {
		t.Fatalf("%d commits without offsets turned into aborts, want 1", n)
	}
	if fmt.Sprint(got) != want {
		t.Fatalf("final windows read_committed: %v, want %s (the window closed in the aborted transaction is lost)", got, want)
	}
}

// TestEOSStepsOverMarkersInItsTransactions counts the transactions of a
// query whose input is written in transactions upstream. A committed
// upstream transaction's marker comes in the same poll as its records
// (read_committed shows both once the marker is written), so it is
// stepped over in the transaction of those records: one transaction
// each. An aborted upstream transaction brings its marker alone (its
// records are filtered out): that takes one offsets-only transaction,
// the one that commits the offset past the marker so the group is
// caught up (Quiesce); records polled within the commit interval after
// it would join it, since it stays open that long.
func TestEOSStepsOverMarkersInItsTransactions(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.eosCounts("marker_counts", "exactly_once_v2", 1)
	const q = "CTAS_MARKER_COUNTS_1"
	up, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.TransactionalID("upstream"))
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	want := map[string]int{}
	upTxn := func(i int, end kgo.TransactionEndTry) {
		t.Helper()
		if err := up.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		k := fmt.Sprintf("k%d", i%2)
		if end == kgo.TryCommit {
			want[k]++
		}
		if err := up.ProduceSync(ctx, &kgo.Record{Topic: "s", Key: []byte(k), Value: fmt.Appendf(nil, `{"V":%d}`, i)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := up.EndTransaction(ctx, end); err != nil {
			t.Fatal(err)
		}
		if err := f.e.Quiesce(ctx); err != nil { // committed past the marker
			t.Fatal(err)
		}
	}
	const upstream = 5
	for i := range upstream {
		upTxn(i, kgo.TryCommit)
	}
	f.awaitCounts("marker_counts", want)
	if n := f.awaitTxnEnds(q, upstream); n != upstream {
		t.Fatalf("%d transactions ended for %d upstream transactions of one record each, want one each", n, upstream)
	}
	upTxn(upstream, kgo.TryAbort)
	if n := f.awaitTxnEnds(q, upstream+1); n != upstream+1 {
		t.Fatalf("%d transactions ended after an aborted upstream transaction, want %d (one to step over its marker)", n, upstream+1)
	}
	f.awaitCounts("marker_counts", want)
}
