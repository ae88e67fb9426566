package runtime

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/sqlstream/sqlstream/runtime/figures"
	"github.com/sqlstream/sqlstream/runtime/metrics"
)

// MetricsCollector is the engine's metrics (package runtime/metrics), for
// the server's GET /metrics registry.
func (e *Engine) MetricsCollector() prometheus.Collector {
	return metrics.New(e.metricsSnapshot, stateNames[:])
}

// metricsSnapshot is every persistent query's figures, in order.
func (e *Engine) metricsSnapshot() []metrics.Query {
	e.mu.Lock()
	queries := e.sortedQueries()
	e.mu.Unlock()
	out := make([]metrics.Query, 0, len(queries))
	for _, q := range queries {
		m := metrics.Query{ID: q.id, State: q.State().String(), Processed: q.processed.Load(), Logged: q.logged.Load(),
			Late: q.late.Load(), Skipped: q.skipped.Load(), LogLost: e.procLog.Lost(q.id), GlobalLoaded: q.globalLoaded.Load(), Globals: len(q.topo.Globals) > 0,
			StreamTimes: q.streamTimes.Snapshot(), OpenWindows: q.streamTimes.OpenSnapshot()}
		m.TxnEnds, m.TxnEndMean, m.TxnEndMax = q.txnEnds.Snapshot()
		m.Commits, m.CommitMean, m.CommitMax = q.commits.Snapshot()
		m.Nodes, m.Out = q.nodes.Snapshot(), q.nodes.Written(q.topo.SinkTopic)
		m.ConsumerLags = consumerLags(q)
		m.GlobalStores, m.UpgradedAt = figures.MetricsGlobals(q.topo, q.globalStores()), q.upgradedAt
		out = append(out, m)
	}
	return out
}

// MetricsHandler serves the engine's metrics alone in Prometheus' text
// format (for tests and embedders without the server).
func (e *Engine) MetricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e.MetricsCollector())
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// consumerLags is the consumer lag of q's active tasks here, where known.
func consumerLags(q *query) map[string]int64 {
	r := q.tasks()
	if r == nil {
		return nil
	}
	out := map[string]int64{}
	for _, t := range r.Tasks() {
		if lag := t.ConsumerLag(); t.Role == RoleActive && lag >= 0 {
			out[t.Task] = lag
		}
	}
	return out
}
