package exec

import (
	"sync/atomic"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
	"github.com/twmb/franz-go/pkg/kgo"
)

// taskEnvs builds the environment of every task of one query, whatever
// runs it (the Kafka runner, a Kafka push query, the in-memory cluster, a
// pull query): the one place a physical.TaskEnv is filled, from the
// query's parsed configuration.
type taskEnvs struct {
	cfg  Config
	emit physical.Emitter       // output and repartition records (nil for pull queries)
	rows physical.RowSink       // a transient query's rows (nil for persistent queries)
	log  physical.ProcessingLog // where bad records are reported
	// db, appID and sink give a stateful task its stores; with a nil
	// sink no stores are opened (pull queries read committed state).
	db    *state.DB
	appID string
	sink  changelogSink
	// times, when set, receives each task's stream time and open windows.
	times *StreamTimes
	// skipped, when set, counts the records tasks skip (TaskEnv.Skipped).
	skipped *atomic.Int64
	// nodes, when set, counts the records each node receives
	// (TaskEnv.Counts).
	nodes *physical.NodeCounts
	// transactional opens the stores for exactly_once_v2 (state.
	// Transactional): their writes reach Pebble only when the runner
	// commits them with its Kafka transaction. Its tasks cache their
	// table updates till then (physical.TaskEnv.CacheOutputs).
	transactional bool
	// globals are the query's global-table stores (nil: none).
	globals physical.GlobalStores
	// startTime, when set, gives the stream time a task continues from
	// (nil: from the beginning).
	startTime func(physical.TaskID) *int64
	// hold, when set, produces a stateful task's output records once its
	// cached store writes are in the changelog queue ahead of them, at
	// the commit or once they fill the cache's bound (at_least_once in
	// Kafka: heldOutput); nil emits them at once.
	hold func(*kgo.Record)
	// record converts an output record for hold (nil: ToKgo), the
	// runner's, which copies its bytes into a record it recycles once
	// produced (so the held output says it copies: physical.BytesCopier).
	record func(*physical.OutRecord) *kgo.Record
	// lend lends the buffer of the record record will return (the
	// runner's, physical.BufferLender; nil: none).
	lend func(int) physical.Loan
}

// build returns the environment of the task of sub for partition p, and
// its stores (nil for a stateless task).
func (b *taskEnvs) build(sub *physical.SubTopology, p int32) (*physical.TaskEnv, *taskStores) {
	env := &physical.TaskEnv{Partition: p, Emit: b.emit, Rows: b.rows, Log: b.log,
		ThrowOnInvalidTimestamp: b.cfg.ThrowOnInvalid, IdleCloseMs: b.cfg.IdleCloseMs, Skipped: b.skipped, Counts: b.nodes}
	if b.emit != nil {
		env.LateTopic = b.cfg.LateTopic
	}
	if b.times != nil {
		id := physical.TaskID{SubTopology: sub.ID, Partition: p}
		env.StreamTime, env.OpenWindows = b.times.ForTask(id), b.times.OpenFor(id)
	}
	if b.globals != nil {
		env.Globals = b.globals
	}
	if b.startTime != nil {
		env.InitialStreamTime = b.startTime(physical.TaskID{SubTopology: sub.ID, Partition: p})
	}
	if b.sink == nil || len(sub.Stores) == 0 {
		return env, nil
	}
	stores := newTaskStores(b.db, b.appID, p, sub, b.sink, b.cfg.CacheBytes)
	stores.transactional = b.transactional
	env.Stores = stores
	if b.hold != nil && env.Emit != nil {
		stores.held = &heldOutput{produce: b.hold, record: b.record, lend: b.lend, limit: b.cfg.CacheBytes}
		env.Emit = stores.held
		// A table's updates are collapsed per key till the release
		// (taskStores.release flushes them first), as Kafka Streams'
		// cache does; with a cache of 0, every update goes out.
		env.CacheOutputs = b.cfg.CacheBytes > 0
	}
	if b.transactional && env.Emit != nil {
		// exactly_once_v2 collapses them till the transaction commits
		// (kafkaRunner.prepareCommit flushes them into it, first): an
		// abort rebuilds the tasks, which drops what they cached with
		// the rest of the transaction's writes.
		env.CacheOutputs = b.cfg.CacheBytes > 0
	}
	return env, stores
}

// envs returns the builder of the environments of the query's tasks,
// emitting through emit and writing changelogs to sink.
func (q *Query) envs(emit physical.Emitter, sink changelogSink) *taskEnvs {
	return &taskEnvs{cfg: q.Config, emit: emit, log: q.Log, db: q.DB, appID: q.AppID, sink: sink,
		times: q.StreamTimes, skipped: q.Skipped, nodes: q.Nodes, globals: q.Globals}
}

// envs returns the builder of the environments of the push query's
// tasks: rows go to q.Rows, records to emit, changelogs to sink (nil: no
// stores, as for pull queries, which read committed state).
func (q *Push) envs(emit physical.Emitter, sink changelogSink) *taskEnvs {
	return &taskEnvs{cfg: q.Config, emit: emit, rows: q.Rows, log: q.Log, db: q.DB, appID: q.AppID, sink: sink, globals: q.Globals}
}
