package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/pull"
)

// pullReadyPoll is how often awaitCaughtUp looks at the query again.
const pullReadyPoll = 50 * time.Millisecond

// awaitCaughtUp makes the first pull query on a table created by CREATE
// TABLE … AS SELECT wait until the query can answer it: its tasks RUNNING
// (assigned, stores restored) and its committed offsets at the end
// offsets its inputs had when the pull query came, one sub-topology after
// the other (a repartition topic's end is taken once the sub-topology
// feeding it has caught up; one more round per topic a sub-topology
// writes back to an earlier one, physical.Topology.BackEdges: a
// foreign-key join's subscriptions). ksqlDB answers at once from whatever the
// store holds, so a pull query right after the CTAS comes back empty;
// sqlstream waits (bounded by props.PullReadyWait) and, past the bound,
// answers error 50302 saying what the query still waits for. Once a query
// has caught up, later pull queries never wait: they read the committed
// state, as ksqlDB's do. When Kafka cannot answer the offset requests the
// pull query is answered from the store (and a warning logged): the check
// never makes a pull query fail that would have succeeded without it.
//
// A source partition read from latest (auto.offset.reset) without a
// committed offset counts as caught up: the query started past the
// records it holds. Internal topics are always read from their start.
//
// A partition whose last entry is a transaction marker ends one past the
// offset its reader commits; the topics this engine's exactly_once_v2
// queries write (sinks and internal topics) are allowed that one offset.
// Other transactional producers' topics make the wait run to its bound
// the first time; the query is then marked caught up all the same, when
// that bound was at least pullGiveUpAfter.
// pullGiveUpAfter is the shortest wait whose timeout marks a RUNNING
// query caught up all the same (the default of props.PullReadyWait).
const pullGiveUpAfter = 30 * time.Second

func (e *Engine) awaitCaughtUp(t *transient, q *query) error {
	wait := props.NewParser(e.table, t.props).Millis(props.PullReadyWait)
	if e.cluster.Synchronous() || q.caughtUp.Load() || wait <= 0 || t.only != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	missing, err := e.waitCaughtUp(ctx, q)
	switch {
	case err == nil:
		q.caughtUp.Store(q.State() == StateRunning) // a failed query is waited for again once it runs
		return nil
	case ctx.Err() == nil:
		// Kafka cannot tell the offsets now; the store can still answer,
		// as it did before this check existed.
		q.logger().Warn("pull query: cannot tell whether the table's query caught up; answering from its store", "query", q.id, "err", err)
		return nil
	}
	if q.State() == StateRunning && wait >= pullGiveUpAfter {
		// Running, yet its offsets did not line up in a full wait: do not
		// wait again. A shorter wait proves nothing (a pull query with a
		// 1 ms wait must not make the next one answer from an empty store).
		q.caughtUp.Store(true)
	}
	return &api.ErrorMessage{ErrorCode: api.CodeServerNotReady, Message: fmt.Sprintf(
		"Table %s is not ready yet: its query %s %s after %v; try again (%s sets the wait)",
		q.plan.Sink.Name, q.id, missing, wait, props.PullReadyWait)}
}

// waitCaughtUp polls until q is caught up (see awaitCaughtUp and
// pull.WaitCaughtUp) or ctx ends; missing says what it still waited for.
func (e *Engine) waitCaughtUp(ctx context.Context, q *query) (missing string, err error) {
	state := func() (bool, bool, string) {
		st := q.State()
		// A paused query catches up with nothing: its store answers as it is.
		return st == StateRunning, st == StateError || st == StateTerminated || st == StatePaused, st.String()
	}
	t := pull.Table{AppID: q.appID, FromEarliest: q.cfg.FromEarliest, Topology: q.topo, State: state}
	return pull.WaitCaughtUp(ctx, e.cluster, t, e.eosWritten(), pullReadyPoll)
}

// eosWritten is what this engine's exactly_once_v2 queries write (see
// pull.EOSWritten).
func (e *Engine) eosWritten() pull.EOSWritten {
	w := pull.EOSWritten{Sinks: map[string]bool{}}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, q := range e.queries {
		if q.cfg.Guarantee == props.ExactlyOnce {
			w.Sinks[q.topo.SinkTopic] = true
			w.Prefixes = append(w.Prefixes, q.appID+"-")
		}
	}
	return w
}
