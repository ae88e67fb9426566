package rowqueue

import (
	"context"
	"errors"
	"io"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestRowBudget: a row that would pass the budget waits until bytes are
// released, one alone always goes through, and a closed client ends the
// wait.
func TestRowBudget(t *testing.T) {
	b := newRowBudget(100)
	if !b.acquire(60, nil) || !b.acquire(30, nil) {
		t.Fatal("rows within the budget refused")
	}
	got := make(chan bool)
	go func() { got <- b.acquire(50, nil) }()
	b.mu.Lock()
	if b.used != 90 { // 90+50 > 100: the goroutine cannot be in yet
		t.Errorf("used %d while a row waits, want 90", b.used)
	}
	b.mu.Unlock()
	b.release(60)
	if !<-got {
		t.Fatal("the waiting row was refused")
	}
	if b.used != 80 {
		t.Errorf("used %d, want 80", b.used)
	}
	closed := make(chan struct{})
	close(closed)
	if b.acquire(50, closed) {
		t.Error("a row past the budget went in for a closed client")
	}
	b.release(80)
	if !b.acquire(1_000, nil) {
		t.Error("a row bigger than the whole budget is stuck on an empty queue")
	}
}

// TestTransientRowBytes: a push query's queue for its client holds about
// RowBytes, not 256 rows of any size: with the client away, Row
// blocks once the queued rows' bytes reach the budget, and Close ends it.
func TestTransientRowBytes(t *testing.T) {
	q := New(-1, func() string { return "" })
	big := strings.Repeat("x", 100<<10)
	row := &types.Row{Values: []any{big, []any{"a", int32(1)}, map[string]any{"k": big}}}
	n := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for q.Row(row) {
			n++
		}
	}()
	// Rows of ≈ 200 KiB: the budget takes five, the sixth waits. Close
	// is the client leaving; Row then returns false.
	want := RowBytes / rowBytes(row.Values)
	for len(q.rows) < want {
		goruntime.Gosched() // the fact waited on: the producer queued its rows
	}
	q.budget.mu.Lock()
	if used := q.budget.used; used != want*rowBytes(row.Values) || len(q.rows) != want {
		t.Errorf("%d rows of %d bytes queued, want %d", len(q.rows), used, want)
	}
	q.budget.mu.Unlock()
	q.Close()
	<-done
	if n != want {
		t.Errorf("Row accepted %d rows, want %d", n, want)
	}
}

// TestQueueLimitAndEnd: LIMIT ends the query with limitFinal's message
// after the last row, the rows queued before the end are still taken, and
// a failed query's error comes after its rows.
func TestQueueLimitAndEnd(t *testing.T) {
	ctx := context.Background()
	q := New(2, func() string { return "Limit Reached" })
	if !q.Row(&types.Row{Values: []any{1}}) || q.Row(&types.Row{Values: []any{2}}) {
		t.Fatal("Row: want true for the first row, false for the one reaching LIMIT")
	}
	for _, want := range []any{1, 2} {
		if r, err := q.Next(ctx); err != nil || r.Values[0] != want {
			t.Fatalf("Next = %v, %v; want %v", r, err, want)
		}
	}
	if _, err := q.Next(ctx); err != io.EOF || q.FinalMessage() != "Limit Reached" {
		t.Fatalf("after LIMIT: %v, final %q", err, q.FinalMessage())
	}
	failed := New(-1, nil)
	failed.Row(&types.Row{Values: []any{"a"}})
	failed.Finish(errors.New("broken"))
	failed.FinishWith(nil, "ignored: only the first end counts")
	if r, err := failed.Next(ctx); err != nil || r.Values[0] != "a" {
		t.Fatalf("the row before the failure: %v, %v", r, err)
	}
	if _, err := failed.Next(ctx); err == nil || err.Error() != "broken" || failed.FinalMessage() != "" {
		t.Fatalf("after the failure: %v, final %q", err, failed.FinalMessage())
	}
	if !failed.Close() || failed.Close() {
		t.Fatal("Close: want true the first time only")
	}
}
