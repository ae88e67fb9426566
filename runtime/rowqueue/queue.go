package rowqueue

import (
	"context"
	"io"
	"sync"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Queue is the rows of one transient query (push, pull, PRINT) on their
// way to its client: the producer (the query's runner) blocks in Row
// while the rows queued pass RowBytes, LIMIT ends the query, and the
// client takes rows with Next until the end. Close is the client going
// away: the producer's Row returns false from then on.
type Queue struct {
	rows       chan queuedRow
	budget     *rowBudget    // bytes of the rows in rows, at most RowBytes
	closed     chan struct{} // closed by Close: the client is gone
	limit      int           // -1: unlimited
	limitFinal func() string // the final message once LIMIT is reached

	mu      sync.Mutex
	sent    int
	done    bool
	err     error
	final   string
	endOnce sync.Once
	ended   chan struct{} // closed when the producer side is finished
}

// New returns the queue of a query that ends after limit rows (-1: no
// limit) with the final message limitFinal returns then.
func New(limit int, limitFinal func() string) *Queue {
	return &Queue{rows: make(chan queuedRow, 256), budget: newRowBudget(RowBytes), closed: make(chan struct{}),
		limit: limit, limitFinal: limitFinal, ended: make(chan struct{})}
}

// Close marks the client gone; false when it already was.
func (t *Queue) Close() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.closed:
		return false
	default:
		close(t.closed)
		return true
	}
}

// Closed is closed once the client is gone.
func (t *Queue) Closed() <-chan struct{} { return t.closed }

// queuedRow is a row waiting for the client, with the bytes it holds of
// the query's rowBudget.
type queuedRow struct {
	row   api.Row
	bytes int
}

// Row implements physical.RowSink: it blocks until the client takes the
// row or goes away, and returns false once LIMIT is reached (the final
// message then is limitFinal's).
func (t *Queue) Row(r *types.Row) bool {
	n := rowBytes(r.Values)
	if !t.budget.acquire(n, t.closed) {
		return false
	}
	select {
	case t.rows <- queuedRow{api.Row{Values: r.Values, Tombstone: r.Tombstone}, n}:
	case <-t.closed:
		return false
	}
	t.mu.Lock()
	t.sent++
	more := t.limit < 0 || t.sent < t.limit
	t.mu.Unlock()
	if !more {
		t.FinishWith(nil, t.limitFinal())
	}
	return more
}

// Finish ends the producing side: err nil means the query completed.
func (t *Queue) Finish(err error) { t.FinishWith(err, "") }

// FinishWith ends the producing side with the final message the client
// gets after the last row; only the first end counts.
func (t *Queue) FinishWith(err error, final string) {
	t.endOnce.Do(func() {
		t.mu.Lock()
		t.err, t.final, t.done = err, final, true
		t.mu.Unlock()
		close(t.ended)
	})
}

// Next implements api.RowStream: the next row, io.EOF once the query
// completed and its rows were taken, its error once it failed.
func (t *Queue) Next(ctx context.Context) (api.Row, error) {
	select {
	case q := <-t.rows:
		return t.take(q), nil
	default:
	}
	select {
	case q := <-t.rows:
		return t.take(q), nil
	case <-t.ended:
		select {
		case q := <-t.rows:
			return t.take(q), nil
		default:
		}
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.err != nil {
			return api.Row{}, t.err
		}
		return api.Row{}, io.EOF
	case <-ctx.Done():
		return api.Row{}, ctx.Err()
	}
}

// take hands a queued row to the client and frees its bytes.
func (t *Queue) take(q queuedRow) api.Row {
	t.budget.release(q.bytes)
	return q.row
}

// FinalMessage implements api.RowStream.
func (t *Queue) FinalMessage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.final
}
