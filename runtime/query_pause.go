package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/naming"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// PAUSE and RESUME (ksqlDB 0.28) of persistent queries. Both are commands
// of the command log, as TERMINATE is: every server of the service id
// applies them to its share of the query's tasks, and a restart replays
// them, so a paused query starts paused (exec.Query.Paused) and stays so
// until a RESUME. A paused query keeps its group membership, tasks, state
// and committed offsets; its runner stops fetching (exec.Pauser), and
// RESUME goes on from there.
//
//	PAUSE id ─► checks (ksqlDB's ValidatedCommandFactory) ─► record
//	         ─► q.pauseRun: PAUSED, runner.Pause (now, or at its start)
//	RESUME id ─► checks ─► record ─► q.resumeRun: the runner's state,
//	             runner.Resume
//
// ksqlDB's answers: an unknown id is "Unknown queryId: <id>"; an id that
// names a transient query (it contains "transient") is recorded and
// answered "Query paused." / "Query resumed." with no effect (transient
// queries cannot be paused); a SOURCE table's query is refused ("Cannot
// pause query '<id>' because it is linked to a source table."); pausing
// a paused query, or resuming a running one, is answered as success and
// changes nothing. A replayed command whose query is gone is a no-op, as
// in ksqlDB's InteractiveStatementExecutor.
//
// Where this differs from ksqlDB, on purpose: ksqlDB's EXPLAIN takes each
// host's status from the Kafka Streams state, which a pause leaves
// RUNNING, so there a paused query is RUNNING in EXPLAIN and PAUSED in
// SHOW QUERIES; here both say PAUSED (and /clusterStatus too). CREATE OR
// REPLACE of a paused query upgrades it in place paused: the PAUSE in
// the command log still holds for the query id. A paused query's standby
// replicas keep following their changelogs, which it does not write.

// pauseTarget is what a PAUSE or RESUME names.
type pauseTarget struct {
	pos         ast.Pos
	id          string
	all, resume bool
}

// pauseOrResume runs stmt, a PAUSE or RESUME of t.
func (e *Engine) pauseOrResume(ctx context.Context, stmt ast.Statement, t pauseTarget, s *session, cmd *command) (api.Entity, error) {
	verb, done := "pause", "Query paused."
	if t.resume {
		verb, done = "resume", "Query resumed."
	}
	targets, err := e.pauseTargets(t, verb, cmd != nil)
	if err != nil {
		return nil, err
	}
	c, err := e.record(ctx, stmt, s, cmd, nil)
	if err != nil {
		return nil, err
	}
	for _, q := range targets {
		if t.resume {
			q.resumeRun()
		} else {
			q.pauseRun()
		}
	}
	statusID := verb + "/" + strings.ToUpper(t.id) + "/execute"
	if t.all {
		statusID = verb + "/ALL/execute"
	}
	e.statuses[statusID] = api.StatusSuccess
	return commandStatus(stmt, statusID, done, c.Seq, ""), nil
}

// pauseTargets are the queries PAUSE or RESUME acts on, checked in
// ksqlDB's words (none for a transient query's id, or for a replayed
// command whose query is gone). e.mu is held.
func (e *Engine) pauseTargets(t pauseTarget, verb string, replayed bool) ([]*query, error) {
	if t.all {
		return e.sortedQueries(), nil
	}
	if strings.Contains(strings.ToLower(t.id), "transient") {
		return nil, nil
	}
	q, ok := e.queries[strings.ToUpper(t.id)]
	switch {
	case !ok && replayed:
		return nil, nil
	case !ok:
		return nil, sqlerr.New(sqlerr.Unknown, t.pos, "Unknown queryId: %s", t.id)
	case naming.MaterializesSource(q.id):
		return nil, sqlerr.New(sqlerr.Semantic, t.pos, "Cannot %s query '%s' because it is linked to a source table.", verb, q.id)
	}
	return []*query{q}, nil
}

// pauseRun moves q to PAUSED and pauses its runner, or the runner it starts
// next. Pausing a paused or terminated query changes nothing.
func (q *query) pauseRun() {
	q.mu.Lock()
	if q.paused || q.state == StateTerminated {
		q.mu.Unlock()
		return
	}
	q.paused, q.beneath = true, q.state
	p := q.pauser
	q.mu.Unlock()
	q.setState(StatePaused, nil)
	if p != nil {
		p.Pause()
	}
}

// resumeRun takes q out of PAUSED, back to the state its runner reported
// meanwhile, and resumes its runner. A query that failed while paused
// stays in ERROR (its runner stopped).
func (q *query) resumeRun() {
	q.mu.Lock()
	if !q.paused {
		q.mu.Unlock()
		return
	}
	q.paused = false
	to, p, st := q.beneath, q.pauser, q.state
	q.mu.Unlock()
	if st == StatePaused {
		q.setState(to, nil)
	}
	if p != nil {
		p.Resume()
	}
}

// startable reports whether q waits for its start: PENDING, or PAUSED
// before it started (a replayed PAUSE).
func (q *query) startable() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state == StatePending || (q.state == StatePaused && q.beneath == StatePending && q.runner == nil)
}

// pendingBeneath reports whether q is PENDING, or PAUSED while its
// runner has yet to report its tasks running.
func (q *query) pendingBeneath() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state == StatePending || (q.state == StatePaused && q.beneath == StatePending)
}

// isPaused reports whether PAUSE paused q (a runner starting now starts
// paused).
func (q *query) isPaused() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.paused
}

// started records the runner of q's current run as its task reporter and
// pauser, and brings it in line with a PAUSE or RESUME applied while it
// was being started.
func (q *query) started(r exec.Runner) {
	q.mu.Lock()
	q.reporter, _ = r.(exec.TaskReporter)
	q.pauser, _ = r.(exec.Pauser)
	p, paused := q.pauser, q.paused
	q.mu.Unlock()
	switch {
	case p == nil && paused:
		q.logger().Warn("the query's runner cannot pause; it processes while PAUSED", "query", q.id)
	case p == nil:
	case paused:
		p.Pause()
	default:
		p.Resume()
	}
}

// pausedRunner is q's runner as a pauser, when it has one that paused
// (tests wait on it).
func (q *query) pausedRunner() (exec.Pauser, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pauser == nil {
		return nil, fmt.Errorf("query %s has no runner that pauses", q.id)
	}
	return q.pauser, nil
}
