package runtime

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/physical"
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

// globalStart is the runner of a query whose global stores are loading.
type globalStart struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once the load ended and the runner (if any) is set
	mu     sync.Mutex
	r      runner // the query's runner once the load is done
}

// stop cancels the load, waits for it, then stops the runner it started.
func (s *globalStart) stop() error {
	s.cancel()
	<-s.done
	s.mu.Lock()
	r := s.r
	s.r = nil
	s.mu.Unlock()
	if r == nil {
		return nil
	}
	return r.stop()
}

// started returns the runner started after the load (nil: none yet).
func (s *globalStart) started() runner {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r
}

// startLoadingGlobals starts q's global stores' load in the background,
// then its runner. e.mu is held; the load does not need it.
func (q *query) startLoadingGlobals() {
	ctx, cancel := context.WithCancel(context.Background())
	s := &globalStart{cancel: cancel, done: make(chan struct{})}
	q.mu.Lock()
	q.runner = s
	q.mu.Unlock()
	go func() {
		defer close(s.done)
		start := time.Now()
		g, err := q.eng.startGlobals(ctx, q.topo, q.globalEnv())
		if ctx.Err() != nil {
			g.close()
			return // stopped meanwhile
		}
		if err != nil {
			q.fail(globalLoadError(q, err))
			return
		}
		q.logger().Info("global stores loaded", "query", q.id, "elapsed", time.Since(start).Round(time.Millisecond))
		q.globals = g
		r, err := q.eng.cluster.start(q)
		if err != nil {
			g.close()
			q.fail(err)
			return
		}
		s.mu.Lock()
		s.r = withGlobals(r, g)
		s.mu.Unlock()
	}()
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
func (q *query) globalEnv() globalEnv {
	return globalEnv{appID: q.appID, cache: q.cfg.CacheBytes, log: q.procLog(), onErr: q.globalFailed,
		count: func() { q.globalLoaded.Add(1) }}
}

// globalHook combines the engine's WithGlobalLoadHook (for topic) with
// the query's count; nil when there is neither.
func (e *Engine) globalHook(topic string, count func()) func(*physical.InRecord) error {
	hook := e.opts.globalHook
	if hook == nil && count == nil {
		return nil
	}
	return func(r *physical.InRecord) error {
		if hook != nil {
			if err := hook(topic, r.Partition, r.Offset); err != nil {
				return fmt.Errorf("load hook: %w", err)
			}
		}
		if count != nil {
			count()
		}
		return nil
	}
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

const defaultGlobalPartitionCheck = 10 * time.Second

// globalCheckEvery is the follower's interval of partition checks.
func (k *kafkaCluster) globalCheckEvery() time.Duration {
	if k.globalCheck > 0 {
		return k.globalCheck
	}
	return defaultGlobalPartitionCheck
}

// kafkaRunnerOf returns the Kafka runner inside r (nil: none, or not yet
// started).
func kafkaRunnerOf(r runner) *kafkaRunner {
	switch r := r.(type) {
	case *kafkaRunner:
		return r
	case globalRunner:
		return kafkaRunnerOf(r.runner)
	case *globalStart:
		return kafkaRunnerOf(r.started())
	}
	return nil
}
