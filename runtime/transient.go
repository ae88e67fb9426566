package runtime

import (
	"sync"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/rowqueue"
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

	// Queue is the rows on their way to the client (package
	// runtime/rowqueue): Row, Next, FinalMessage.
	*rowqueue.Queue

	mu     sync.Mutex
	runner exec.Runner
}

// newTransient prepares a push or pull query or a PRINT; a property its
// configuration cannot parse is an error naming it.
func newTransient(e *Engine, id, sql string, topo *physical.Topology, cols []types.Column, set props.Properties, limit int) (*transient, error) {
	cfg, err := props.NewQueryConfig(e.table, set)
	if err != nil {
		return nil, err
	}
	t := &transient{eng: e, id: id, sql: sql, topo: topo, props: set, cfg: cfg, limit: limit,
		header: api.QueryHeader{QueryID: id, Columns: cols}}
	t.Queue = rowqueue.New(limit, t.limitMessage)
	return t, nil
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
func (t *transient) finish(err error) { t.Finish(err) }

func (t *transient) finishWith(err error, final string) { t.FinishWith(err, final) }

// Header implements api.RowStream.
func (t *transient) Header() api.QueryHeader { return t.header }

// Close implements api.RowStream: it stops the query and forgets it.
func (t *transient) Close() error {
	if !t.Queue.Close() {
		return nil
	}
	t.mu.Lock()
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
