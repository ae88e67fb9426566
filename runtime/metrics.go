package runtime

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsCollector exports per-query figures in Prometheus' format:
// records processed, processing-log entries, late records dropped,
// commit and transaction-end latencies, the stream time of each task,
// each active task's consumer lag and the records each node of a
// topology received. It reads the engine's state at scrape time, so
// nothing is kept twice.
type metricsCollector struct {
	e                               *Engine
	processed, logged, late, stream *prometheus.Desc
	skipped, globalLoaded           *prometheus.Desc
	open, queries                   *prometheus.Desc
	txnEnd, txnEndMax               *prometheus.Desc
	commit, commitMax               *prometheus.Desc
	consumerLag, nodeRecords        *prometheus.Desc
}

func newMetricsCollector(e *Engine) *metricsCollector {
	q := []string{"query"}
	return &metricsCollector{e: e,
		processed: prometheus.NewDesc("sqlstream_query_records_processed_total", "Input records a persistent query processed.", q, nil),
		logged:    prometheus.NewDesc("sqlstream_query_processing_log_total", "Processing-log entries a query wrote (records it skipped or dropped).", q, nil),
		late:      prometheus.NewDesc("sqlstream_query_late_records_total", "Records dropped because their window had closed.", q, nil),
		skipped:   prometheus.NewDesc("sqlstream_query_skipped_records_total", "Records a join (stream–stream, stream–table, stream–global table) skipped for a null key or value.", q, nil),
		stream:    prometheus.NewDesc("sqlstream_task_stream_time_ms", "Stream time (largest event time seen) of a windowed task.", []string{"query", "task"}, nil),
		open:      prometheus.NewDesc("sqlstream_task_open_windows", "Distinct windows a windowed task still accepts records for.", []string{"query", "task"}, nil),
		queries:   prometheus.NewDesc("sqlstream_queries", "Persistent queries by state.", []string{"state"}, nil),
		globalLoaded: prometheus.NewDesc("sqlstream_query_global_records_loaded_total",
			"Records a query's global-table stores read from their topics (a restart reads only those after the local checkpoint).", q, nil),
		txnEnd: prometheus.NewDesc("sqlstream_query_transaction_end_seconds",
			"Time an exactly_once_v2 query took to end its transactions (cache and producer flush, offsets, EndTxn).", q, nil),
		txnEndMax: prometheus.NewDesc("sqlstream_query_transaction_end_max_seconds", "Longest transaction end of an exactly_once_v2 query.", q, nil),
		commit: prometheus.NewDesc("sqlstream_query_commit_seconds",
			"Time an at_least_once query took to commit (store and producer flushes, checkpoints, the offset commit), for commits that sent offsets.", q, nil),
		commitMax: prometheus.NewDesc("sqlstream_query_commit_max_seconds", "Longest commit of an at_least_once query.", q, nil),
		consumerLag: prometheus.NewDesc("sqlstream_task_consumer_lag",
			"Records an active task on this server has yet to process: from its position to each input partition's last stable offset as the last fetch told it, summed over its inputs (absent while unknown).",
			[]string{"query", "task"}, nil),
		nodeRecords: prometheus.NewDesc("sqlstream_node_records_total",
			"Records a node of a persistent query's topology received on this server (a source: from its topic; a processor or sink: from the node before it).",
			[]string{"query", "subtopology", "node"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (m *metricsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.processed, m.logged, m.late, m.skipped, m.globalLoaded, m.stream, m.open, m.queries, m.txnEnd, m.txnEndMax, m.commit, m.commitMax, m.consumerLag, m.nodeRecords} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *metricsCollector) Collect(ch chan<- prometheus.Metric) {
	m.e.mu.Lock()
	queries := m.e.sortedQueries()
	m.e.mu.Unlock()
	states := map[string]int{}
	for _, q := range queries {
		states[q.State().String()]++
		ch <- prometheus.MustNewConstMetric(m.processed, prometheus.CounterValue, float64(q.processed.Load()), q.id)
		ch <- prometheus.MustNewConstMetric(m.logged, prometheus.CounterValue, float64(q.logged.Load()), q.id)
		ch <- prometheus.MustNewConstMetric(m.late, prometheus.CounterValue, float64(q.late.Load()), q.id)
		ch <- prometheus.MustNewConstMetric(m.skipped, prometheus.CounterValue, float64(q.skipped.Load()), q.id)
		if len(q.topo.Globals) > 0 {
			ch <- prometheus.MustNewConstMetric(m.globalLoaded, prometheus.CounterValue, float64(q.globalLoaded.Load()), q.id)
		}
		for task, t := range q.streamTimes.Snapshot() {
			ch <- prometheus.MustNewConstMetric(m.stream, prometheus.GaugeValue, float64(t), q.id, task)
		}
		for task, n := range q.streamTimes.OpenSnapshot() {
			ch <- prometheus.MustNewConstMetric(m.open, prometheus.GaugeValue, float64(n), q.id, task)
		}
		if n, mean, longest := q.txnEnds.Snapshot(); n > 0 {
			ch <- prometheus.MustNewConstSummary(m.txnEnd, uint64(n), mean.Seconds()*float64(n), nil, q.id)
			ch <- prometheus.MustNewConstMetric(m.txnEndMax, prometheus.GaugeValue, longest.Seconds(), q.id)
		}
		if n, mean, longest := q.commits.Snapshot(); n > 0 {
			ch <- prometheus.MustNewConstSummary(m.commit, uint64(n), mean.Seconds()*float64(n), nil, q.id)
			ch <- prometheus.MustNewConstMetric(m.commitMax, prometheus.GaugeValue, longest.Seconds(), q.id)
		}
		for _, c := range q.nodes.Snapshot() {
			ch <- prometheus.MustNewConstMetric(m.nodeRecords, prometheus.CounterValue, float64(c.Records), q.id, strconv.Itoa(c.SubTopology), c.Node)
		}
		m.collectTasks(ch, q)
	}
	for _, s := range stateNames {
		ch <- prometheus.MustNewConstMetric(m.queries, prometheus.GaugeValue, float64(states[s]), s)
	}
}

// collectTasks exports the consumer lag of q's active tasks here.
func (m *metricsCollector) collectTasks(ch chan<- prometheus.Metric, q *query) {
	r := q.tasks()
	if r == nil {
		return
	}
	for _, t := range r.Tasks() {
		if lag := t.ConsumerLag(); t.Role == RoleActive && lag >= 0 {
			ch <- prometheus.MustNewConstMetric(m.consumerLag, prometheus.GaugeValue, float64(lag), q.id, t.Task)
		}
	}
}

// MetricsCollector is the engine's metrics, for the server's GET
// /metrics registry.
func (e *Engine) MetricsCollector() prometheus.Collector { return newMetricsCollector(e) }

// MetricsHandler serves the engine's metrics alone in Prometheus' text
// format (for tests and embedders without the server).
func (e *Engine) MetricsHandler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e.MetricsCollector())
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// streamTimeText describes the tasks' stream times for DESCRIBE EXTENDED.
func (q *query) streamTimeText() []string {
	snap := q.streamTimes.Snapshot()
	tasks := make([]string, 0, len(snap))
	for t := range snap {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	open := q.streamTimes.OpenSnapshot()
	var out []string
	for _, t := range tasks {
		out = append(out, fmt.Sprintf("task %s: stream time %s, %d open windows", t, formatMillis(snap[t]), open[t]))
	}
	return out
}
