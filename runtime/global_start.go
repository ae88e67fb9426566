package runtime

import (
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/kafkasec"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// A persistent query joining a global table on Kafka loads the table's
// store outside the engine lock: q.start (under the lock, for CREATE as
// for a command replayed at start-up) only starts the load in the
// background and returns; the query stays PENDING (SHOW QUERIES) until
// the stores hold their topics up to the end offsets seen at the load's
// start, and only then its runner starts, so no stream record is
// processed before. A load that fails puts the query in ERROR, saying
// why; TERMINATE, DROP or a shutdown meanwhile cancel the load. The
// in-memory cluster loads synchronously (its topics are in memory, and
// its callers expect a query to run once its statement returned).

// startLoadingGlobals starts q's global stores' load in the background,
// then its runner. e.mu is held; the load does not need it.
func (q *query) startLoadingGlobals() {
	l := global.Background(q.topo.Globals, q.globalEnv(), func(g *global.Stores, elapsed time.Duration) (exec.Runner, error) {
		q.logger().Info("global stores loaded", "query", q.id, "elapsed", elapsed.Round(time.Millisecond))
		q.globals = g
		r, err := q.eng.cluster.Start(q.spec())
		if err != nil {
			q.fail(err)
			return nil, err
		}
		q.started(r)
		return r, nil
	}, func(err error) { q.fail(globalLoadError(q, err)) })
	q.mu.Lock()
	q.runner = l
	q.mu.Unlock()
}

// globalLoadError says which global table failed to load and what to do.
func globalLoadError(q *query, err error) error {
	var topics []string
	for _, g := range q.topo.Globals {
		topics = append(topics, g.Topic)
	}
	return fmt.Errorf("could not load the global table store of query %s from topic(s) %v: %w; "+
		"the query processes nothing: check that the topic exists and is readable, then restart the server or TERMINATE and re-create the query", q.id, topics, err)
}

// globalEnv is the environment of q's global stores: a follower's fault
// after the start fails the query; loaded records are counted.
func (q *query) globalEnv() global.Env {
	env := q.eng.globalEnv(q.appID, q.cfg, q.procLog(), q.globalFailed)
	env.Count = func() { q.globalLoaded.Add(1) }
	env.Figures = q.globalFigs
	return env
}

// globalEnv is the environment of the global stores of appID, run with
// cfg (its cache size and the global consumer's Kafka client settings):
// records that do not deserialize go to log, a follower's fault after
// the start to onErr.
func (e *Engine) globalEnv(appID string, cfg props.QueryConfig, log physical.ProcessingLog, onErr func(error)) global.Env {
	return global.Env{AppID: appID, Cache: cfg.CacheBytes, DB: e.db, Cluster: e.cluster, Log: log, OnErr: onErr, Hook: e.opts.globalHook,
		Clients: kafkasec.ReaderOptions(cfg.Clients.Global, cfg.Clients.Common)}
}

// withGlobalLoadHook calls hook for every record a global table's store
// loads (topic, partition, offset), before it is applied, on the loading
// goroutine: a test observes, holds up or (returning an error) fails the
// load with it (export_test.go).
func withGlobalLoadHook(hook func(topic string, partition int32, offset int64) error) Option {
	return optionFunc(func(o *options) { o.globalHook = hook })
}

// withGlobalPartitionCheck sets how often a global table's follower
// looks for partitions added to its topic (export_test.go). Default 10 s.
func withGlobalPartitionCheck(d time.Duration) Option {
	return optionFunc(func(o *options) { o.globalCheck = d })
}
