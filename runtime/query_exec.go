package runtime

import (
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/assign"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/kafkasec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
)

// What the executor (runtime/exec) sees of the engine's queries: a small
// value per run (exec.Query, exec.Push) and, for a persistent query, an
// observer (queryObserver) through which its runner reports state
// changes, errors and the end of its placement. The runner never sees a
// *query or the *Engine.

// execConfig is the runner's part of a query's configuration.
func execConfig(c props.QueryConfig) exec.Config {
	return exec.Config{CommitInterval: c.CommitInterval, Threads: c.Threads, FromEarliest: c.FromEarliest,
		CacheBytes: c.CacheBytes, IdleCloseMs: c.IdleCloseMs, MaxTaskIdle: c.MaxTaskIdle, LateTopic: c.LateTopic,
		ThrowOnInvalid: c.ThrowOnInvalid, ExactlyOnce: c.Guarantee == props.ExactlyOnce, SessionTimeout: c.SessionTimeout,
		AcceptableLag: c.HA.AcceptableLag, Clients: kafkasec.ClientOptions(c.Clients, c.Guarantee == props.ExactlyOnce),
		MaxPollRecords: c.Clients.Consumer.MaxPollRecords.V, RestoreClients: kafkasec.ReaderOptions(c.Clients.Restore, c.Clients.Common)}
}

// spec is what the runner of the query's current run sees.
func (q *query) spec() *exec.Query {
	s := &exec.Query{ID: q.id, AppID: q.appID, Topology: q.topo, Config: execConfig(q.cfg), DB: q.eng.db,
		Logger: q.eng.logger, Log: q.procLog(), Observer: queryObserver{q},
		Processed: &q.processed, Skipped: &q.skipped, StreamTimes: &q.streamTimes, TxnEnds: &q.txnEnds, Commits: &q.commits, Nodes: q.nodes,
		Restores: &q.restores, Balancer: q.balancer, ReplicaFault: q.eng.opts.replicaFault, Resume: q.resume,
		Paused: q.isPaused()}
	if q.globals != nil {
		s.Globals = q.globals
	}
	return s
}

// queryObserver is how a runner reports to its query.
type queryObserver struct{ q *query }

func (o queryObserver) Running()            { o.q.setState(StateRunning, nil) }
func (o queryObserver) Failed(err error)    { o.q.fail(err) }
func (o queryObserver) Recovered(err error) { o.q.noteError(err) }

// Stopped forgets the query's placement: this server runs none of its
// tasks any more.
func (o queryObserver) Stopped() { o.q.placed(nil, nil) }

// balancer is the query's task balancer (package runtime/assign): the
// query's threads, local offset sums and high-availability settings,
// advertising this server and recording the host maps of every
// assignment (cluster_queries.go).
func (q *query) balancer(h exec.BalancerHooks) kgo.GroupBalancer {
	stateful := map[int]bool{}
	for _, st := range q.topo.SubTopologies {
		stateful[st.ID] = len(st.Stores) > 0
	}
	return assign.New(assign.Config{SubOf: h.SubOf, Threads: q.cfg.Threads, HA: q.cfg.HA, Stateful: stateful,
		OffsetSums: q.taskOffsetSums, EndSums: h.EndSums, Endpoint: q.eng.peers.Advertised, Now: time.Now},
		placement{q: q, hooks: h})
}

// taskOffsetSums sums the checkpointed offsets of the query's local
// store partitions per task.
func (q *query) taskOffsetSums() map[physical.TaskID]int64 {
	subOf := map[string]int{}
	for _, st := range q.topo.SubTopologies {
		for _, spec := range st.Stores {
			subOf[spec.Name] = st.ID
		}
	}
	out := map[physical.TaskID]int64{}
	for _, id := range q.eng.db.Stores() {
		sub, ok := subOf[id.Name]
		if id.App != q.appID || !ok {
			continue
		}
		if off, ok := q.eng.db.Checkpointed(id); ok {
			out[physical.TaskID{SubTopology: sub, Partition: id.Partition}] += off
		}
	}
	return out
}

// tasks is the executor's runner of the query's current run as a task
// reporter (nil: no runner, or one that runs no group).
func (q *query) tasks() exec.TaskReporter {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.runner == nil {
		return nil
	}
	return q.reporter
}

// spec is what the push runner sees of the transient query.
func (t *transient) spec() *exec.Push {
	s := &exec.Push{ID: t.id, AppID: t.appID, Topology: t.topo, Config: execConfig(t.cfg), DB: t.eng.db,
		Logger: t.eng.logger, Log: t.eng.procLog, Rows: t, Finish: t.finish}
	if t.globals != nil {
		s.Globals = t.globals
	}
	return s
}

// taskEnv is the environment of the pull query's task of sub for
// partition p (no emitter, no stores: it reads committed state).
func (t *transient) taskEnv(sub *physical.SubTopology, p int32) *physical.TaskEnv {
	return t.spec().TaskEnv(sub, p)
}

// wipeStores drops the local state of every store of a topology (a
// transient query that ended).
func (e *Engine) wipeStores(appID string) {
	for _, st := range e.db.Stores() {
		if st.App == appID {
			if err := e.db.Wipe(st); err != nil {
				e.logger.Warn("could not wipe store", "store", st.String(), "err", err)
			}
		}
	}
}
