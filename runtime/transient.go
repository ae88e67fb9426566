package runtime

import (
	"context"
	"io"
	"sync"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/types"
)

// transient is a push query (SELECT … EMIT CHANGES): its topology runs for
// one client; rows flow through a bounded channel, so a slow client slows
// the query rather than growing memory. It implements physical.RowSink on
// the task side and api.RowStream on the client side.
type transient struct {
	eng    *Engine
	id     string
	appID  string // internal topic and store prefix
	sql    string
	topo   *physical.Topology
	plan   *planner.Plan
	props  props.Properties
	cfg    props.QueryConfig // parsed from props
	header api.QueryHeader
	limit  int     // -1: unlimited
	push   bool    // counts against ksql.max.push.queries
	only   []int32 // a forwarded pull query's partitions (see session.only)
	auth   string  // the client's Authorization header, sent when forwarding
	// globals are the global-table stores of a push query's join.
	globals *global.Stores

	rows   chan queuedRow
	budget *rowBudget    // bytes of the rows in rows, at most pushRowBytes
	closed chan struct{} // closed by Close: the client is gone

	mu      sync.Mutex
	sent    int
	done    bool
	err     error
	final   string
	runner  exec.Runner
	endOnce sync.Once
	ended   chan struct{} // closed when the producer side is finished
}

// newTransient prepares a push or pull query or a PRINT; a property its
// configuration cannot parse is an error naming it.
func newTransient(e *Engine, id, sql string, topo *physical.Topology, cols []types.Column, set props.Properties, limit int) (*transient, error) {
	cfg, err := props.NewQueryConfig(e.table, set)
	if err != nil {
		return nil, err
	}
	return &transient{eng: e, id: id, sql: sql, topo: topo, props: set, cfg: cfg, limit: limit,
		header: api.QueryHeader{QueryID: id, Columns: cols},
		rows:   make(chan queuedRow, 256), budget: newRowBudget(pushRowBytes),
		closed: make(chan struct{}), ended: make(chan struct{})}, nil
}

// queuedRow is a row waiting for the client, with the bytes it holds of
// the query's rowBudget.
type queuedRow struct {
	row   api.Row
	bytes int
}

// Row implements physical.RowSink: it blocks until the client takes the
// row or goes away, and returns false once LIMIT is reached.
func (t *transient) Row(r *types.Row) bool {
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
		t.finishWith(nil, t.limitMessage())
	}
	return more
}

// limitMessage is the final message when LIMIT is reached: "Limit
// Reached", except for a pull query on a table, which ends with no final
// message however it ends (as ksqlDB's do).
func (t *transient) limitMessage() string {
	if t.header.Pull {
		return ""
	}
	return api.FinalLimitReached
}

// finish ends the producing side: err nil means the query completed.
func (t *transient) finish(err error) { t.finishWith(err, "") }

func (t *transient) finishWith(err error, final string) {
	t.endOnce.Do(func() {
		t.mu.Lock()
		t.err, t.final, t.done = err, final, true
		t.mu.Unlock()
		close(t.ended)
	})
}

// Header implements api.RowStream.
func (t *transient) Header() api.QueryHeader { return t.header }

// Next implements api.RowStream.
func (t *transient) Next(ctx context.Context) (api.Row, error) {
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
func (t *transient) take(q queuedRow) api.Row {
	t.budget.release(q.bytes)
	return q.row
}

// FinalMessage implements api.RowStream.
func (t *transient) FinalMessage() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.final
}

// Close implements api.RowStream: it stops the query and forgets it.
func (t *transient) Close() error {
	t.mu.Lock()
	select {
	case <-t.closed:
		t.mu.Unlock()
		return nil
	default:
		close(t.closed)
	}
	r := t.runner
	t.mu.Unlock()
	t.finish(nil)
	t.eng.forgetTransient(t.id)
	var err error
	if r != nil {
		err = r.Stop()
	}
	if t.topo != nil && len(t.topo.Internal) > 0 {
		t.eng.deleteInternalTopics(t.topo)
	}
	if t.topo != nil && (len(t.topo.Internal) > 0 || len(t.topo.Globals) > 0) {
		t.eng.wipeStores(t.appID) // a push query's global stores too
	}
	return err
}
