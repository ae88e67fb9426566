package runtime

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// query is a persistent query (CSAS, CTAS, INSERT INTO … SELECT): a
// topology running under its application id until terminated.
type query struct {
	eng     *Engine
	id      string
	appID   string // consumer group and internal topic prefix
	sql     string
	plan    *planner.Plan
	topo    *physical.Topology
	props   props.Properties
	cfg     props.QueryConfig // parsed from props when the query starts
	created time.Time
	// resume is set on a query upgraded in place: its group goes on from
	// the offsets the query it replaces committed.
	resume bool
	// formats is the InternalFormats of the command that started it: an
	// upgrade records them again, so its internal topics keep theirs.
	formats string

	processed   atomic.Int64 // input records processed
	logged      atomic.Int64 // processing-log entries
	late        atomic.Int64 // records dropped for arriving after their window closed
	skipped     atomic.Int64 // records a join skipped for a null key or value
	streamTimes exec.StreamTimes
	txnEnds     exec.Latencies       // how long ending each transaction took (exactly_once_v2)
	commits     exec.Latencies       // how long each at_least_once commit took
	nodes       *physical.NodeCounts // records each node of the topology received here
	// globals are the global-table stores of the current run, filled
	// before its runner starts (nil: the query joins no global table).
	globals *global.Stores
	// globalLoaded counts the records its global stores loaded.
	globalLoaded atomic.Int64
	// globalFigs are its global stores' figures (query_figures.go).
	globalFigs *global.Figures
	// upgraded is the query this one replaced in place (nil: none),
	// until it starts and takes over its counts; upgradedAt is when.
	upgraded   *query
	upgradedAt time.Time
	// nodeSince is when the nodes upgrades added started counting, by
	// "<sub-topology>/<name>" (set before the query starts, read only).
	nodeSince map[string]time.Time
	// caughtUp is set once a pull query found the query caught up with
	// its inputs (pull_ready.go): later pull queries do not wait.
	caughtUp atomic.Bool

	mu     sync.Mutex
	state  QueryState
	errs   []queryError
	runner exec.Runner
	// reporter is the executor's runner of the current run as a task
	// reporter, recorded when it starts (nil on the in-memory cluster,
	// whose runners report no tasks); it reports only while runner is set.
	reporter exec.TaskReporter
	restores exec.Restores // each store's restoration progress
	// paused is set by PAUSE and cleared by RESUME (query_pause.go);
	// beneath is the state the runner reported meanwhile, which RESUME
	// shows again. pauser is the current run's runner, when it can pause.
	paused  bool
	beneath QueryState
	pauser  exec.Pauser
}

// newQuery prepares a persistent query; a property its configuration
// cannot parse is an error naming it.
func (e *Engine) newQuery(id, appID, sql string, plan *planner.Plan, topo *physical.Topology, set props.Properties) (*query, error) {
	cfg, err := props.NewQueryConfig(e.table, set)
	if err != nil {
		return nil, err
	}
	return &query{eng: e, id: id, appID: appID, sql: sql, plan: plan, topo: topo, props: set, cfg: cfg,
		created: time.Now(), nodes: topo.NewNodeCounts(), globalFigs: global.NewFigures()}, nil
}

// queryError is one error a query hit, for EXPLAIN / DESCRIBE EXTENDED.
type queryError struct {
	at   time.Time
	msg  string
	kind string // ksqlDB's QueryError type: USER or SYSTEM
}

func (q *query) logger() *slog.Logger { return q.eng.logger }

// State returns the query's current state.
func (q *query) State() QueryState {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state
}

// setState moves the query to state to, recording err when not nil.
// Staying in a state is no transition (a retry that fails again keeps the
// query in ERROR and records the new error). Illegal transitions are
// logged and ignored (a terminated query stays terminated).
func (q *query) setState(to QueryState, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.paused && (to == StateRunning || to == StatePending) {
		q.beneath, to = to, StatePaused // the runner's report, kept for RESUME
	}
	if q.state != to {
		if terr := transition(q.state, to); terr != nil {
			if q.state != StateTerminated {
				q.logger().Error("query state", "query", q.id, "err", terr)
			}
			return
		}
		q.state = to
	}
	if err != nil {
		q.recordError(err)
	}
}

// recordError keeps the last ten errors for EXPLAIN; q.mu is held.
func (q *query) recordError(err error) {
	kind := "SYSTEM"
	if exec.IsUserFault(err) {
		kind = "USER"
	}
	q.errs = append(q.errs, queryError{at: time.Now(), msg: err.Error(), kind: kind})
	if len(q.errs) > 10 {
		q.errs = q.errs[1:]
	}
}

// noteError keeps an error the runner recovered from for EXPLAIN; the
// state stays as it is.
func (q *query) noteError(err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.recordError(err)
}

// fail moves the query to ERROR.
func (q *query) fail(err error) {
	q.logger().Error("query failed", "query", q.id, "err", err)
	q.setState(StateError, err)
	q.eng.storageFailed(q, err)
}

// procLog returns the processing log a task of this query writes to.
func (q *query) procLog() physical.ProcessingLog {
	return &queryLog{q: q}
}

type queryLog struct{ q *query }

func (l *queryLog) Log(e *physical.LogEntry) {
	l.q.logged.Add(1)
	if e.Kind == physical.LateRecord {
		l.q.late.Add(1)
	}
	l.q.eng.procLog.LogFor(l.q.id, e)
}

// start runs the query on the cluster. A query joining a global table
// on Kafka loads its stores in the background first (global_start.go).
func (q *query) start() error {
	q.eng.queryStarts.Add(1)
	if !q.eng.cluster.Synchronous() && len(q.topo.Globals) > 0 {
		q.startLoadingGlobals()
		return nil
	}
	g, err := global.Start(context.Background(), q.topo.Globals, q.globalEnv())
	if err != nil {
		q.fail(err)
		return err
	}
	q.globals = g
	r, err := q.eng.cluster.Start(q.spec())
	if err != nil {
		g.Close()
		q.fail(err)
		return err
	}
	q.mu.Lock()
	q.runner = global.WithStores(r, g)
	q.mu.Unlock()
	q.started(r)
	return nil
}

// globalFailed puts the query in ERROR when a global table's follower
// fails after the start, and stops its runner (from another goroutine:
// stopping waits for the follower): it does not keep joining with a
// table that no longer follows its topic.
func (q *query) globalFailed(err error) {
	q.fail(err)
	go q.stop()
}

// stop stops the query's runner without terminating it (server shutdown).
func (q *query) stop() error {
	q.mu.Lock()
	r := q.runner
	q.runner = nil
	q.mu.Unlock()
	if r != nil {
		return r.Stop()
	}
	return nil
}
