// Package metrics exports the engine's per-query figures in
// Prometheus' format: records processed, rows out to the sink topic,
// processing-log entries (and
// those lost), late
// and skipped records, records the global-table stores loaded, each
// windowed task's stream time and open windows, exactly_once_v2
// transaction ends and at_least_once commits, each active task's
// consumer lag, the records each node of a topology received (a global
// table's store section too), each global store's lag and rows, when a
// query was last upgraded in place, and the persistent queries by state. It reads a
// snapshot of the queries at scrape time (Query, from the engine), so
// nothing is kept twice; it never imports the engine.
//
//	GET /metrics ─► Collector.Collect ─► snapshot() ─► []Query ─► const metrics
package metrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sqlstream/sqlstream/physical"
)

// Query is one persistent query's figures at a scrape.
type Query struct {
	ID, State                        string
	Processed, Logged, Late, Skipped int64
	Out                              int64 // rows its sink node passed to its sink topic
	LogLost                          int64 // processing-log entries lost (queue full, write failed)
	GlobalLoaded                     int64
	Globals                          bool             // it reads global tables: GlobalLoaded is exported
	StreamTimes                      map[string]int64 // task → stream time (ms)
	OpenWindows                      map[string]int64 // task → windows still accepting records
	TxnEnds                          int64            // transaction ends (exactly_once_v2)
	TxnEndMean, TxnEndMax            time.Duration
	Commits                          int64 // commits that sent offsets (at_least_once)
	CommitMean, CommitMax            time.Duration
	Nodes                            []physical.NodeCount // records each node of the topology received here
	ConsumerLags                     map[string]int64     // active task here → its consumer lag (known ones only)
	GlobalStores                     []GlobalStore        // its global tables' stores here
	// UpgradedAt is when the query was last upgraded in place on this
	// server (CREATE OR REPLACE; zero: never): its counters go on across
	// it, a node the new plan added counts from then.
	UpgradedAt time.Time
}

// GlobalStore is one global table's store of a query, in the
// description's "Sub-topology N for global store" section: both its
// nodes (the source and the materializing processor) count the records
// loaded; Lag is its follower's, summed over the topic's partitions (-1
// while unknown), Rows and Bytes its size.
type GlobalStore struct {
	Store, Source, Materialize string
	SubTopology                int
	Loaded, Lag, Rows, Bytes   int64
}

// Collector exports the figures of the queries snapshot returns, with
// every state of states counted (0 when no query is in it).
type Collector struct {
	snapshot                        func() []Query
	states                          []string
	processed, logged, late, stream *prometheus.Desc
	out                             *prometheus.Desc
	skipped, globalLoaded, logLost  *prometheus.Desc
	open, queries                   *prometheus.Desc
	txnEnd, txnEndMax               *prometheus.Desc
	commit, commitMax               *prometheus.Desc
	consumerLag, nodeRecords        *prometheus.Desc
	globalLag, globalRows, upgraded *prometheus.Desc
}

// New returns the collector of snapshot's queries.
func New(snapshot func() []Query, states []string) *Collector {
	q := []string{"query"}
	return &Collector{snapshot: snapshot, states: states,
		processed: prometheus.NewDesc("sqlstream_query_records_processed_total", "Input records a persistent query processed.", q, nil),
		out: prometheus.NewDesc("sqlstream_query_records_out_total",
			"Rows a persistent query's sink node passed to its sink topic on this server (the sink node's records; repartition and other internal topics not counted).", q, nil),
		logged: prometheus.NewDesc("sqlstream_query_processing_log_total", "Processing-log entries a query wrote (records it skipped or dropped).", q, nil),
		logLost: prometheus.NewDesc("sqlstream_query_processing_log_lost_total",
			"Processing-log entries of a query that were lost (the log's queue was full, or the write failed); an ENTRIES_LOST entry reports them once the log writes again.", q, nil),
		late:    prometheus.NewDesc("sqlstream_query_late_records_total", "Records dropped because their window had closed.", q, nil),
		skipped: prometheus.NewDesc("sqlstream_query_skipped_records_total", "Records a join (stream–stream, stream–table, stream–global table) skipped for a null key or value.", q, nil),
		stream:  prometheus.NewDesc("sqlstream_task_stream_time_ms", "Stream time (largest event time seen) of a windowed task.", []string{"query", "task"}, nil),
		open:    prometheus.NewDesc("sqlstream_task_open_windows", "Distinct windows a windowed task still accepts records for.", []string{"query", "task"}, nil),
		queries: prometheus.NewDesc("sqlstream_queries", "Persistent queries by state.", []string{"state"}, nil),
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
		globalLag: prometheus.NewDesc("sqlstream_global_store_lag",
			"Records a global table's store on this server has yet to load: from its follower's position to each partition's last stable offset as its last fetch told it, summed over the topic's partitions (absent while unknown).",
			[]string{"query", "store"}, nil),
		globalRows: prometheus.NewDesc("sqlstream_global_store_rows", "Rows a global table's store holds on this server.", []string{"query", "store"}, nil),
		upgraded: prometheus.NewDesc("sqlstream_query_upgraded_timestamp_seconds",
			"When the query was last upgraded in place on this server (CREATE OR REPLACE): its counters go on across it; a node the new plan added counts from then.", q, nil),
	}
}

// Describe implements prometheus.Collector.
func (m *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.processed, m.out, m.logged, m.logLost, m.late, m.skipped, m.globalLoaded, m.stream, m.open, m.queries, m.txnEnd, m.txnEndMax, m.commit, m.commitMax, m.consumerLag, m.nodeRecords, m.globalLag, m.globalRows, m.upgraded} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *Collector) Collect(ch chan<- prometheus.Metric) {
	states := map[string]int{}
	for _, q := range m.snapshot() {
		states[q.State]++
		ch <- prometheus.MustNewConstMetric(m.processed, prometheus.CounterValue, float64(q.Processed), q.ID)
		ch <- prometheus.MustNewConstMetric(m.out, prometheus.CounterValue, float64(q.Out), q.ID)
		ch <- prometheus.MustNewConstMetric(m.logged, prometheus.CounterValue, float64(q.Logged), q.ID)
		ch <- prometheus.MustNewConstMetric(m.logLost, prometheus.CounterValue, float64(q.LogLost), q.ID)
		ch <- prometheus.MustNewConstMetric(m.late, prometheus.CounterValue, float64(q.Late), q.ID)
		ch <- prometheus.MustNewConstMetric(m.skipped, prometheus.CounterValue, float64(q.Skipped), q.ID)
		if q.Globals {
			ch <- prometheus.MustNewConstMetric(m.globalLoaded, prometheus.CounterValue, float64(q.GlobalLoaded), q.ID)
		}
		for task, t := range q.StreamTimes {
			ch <- prometheus.MustNewConstMetric(m.stream, prometheus.GaugeValue, float64(t), q.ID, task)
		}
		for task, n := range q.OpenWindows {
			ch <- prometheus.MustNewConstMetric(m.open, prometheus.GaugeValue, float64(n), q.ID, task)
		}
		if q.TxnEnds > 0 {
			ch <- prometheus.MustNewConstSummary(m.txnEnd, uint64(q.TxnEnds), q.TxnEndMean.Seconds()*float64(q.TxnEnds), nil, q.ID)
			ch <- prometheus.MustNewConstMetric(m.txnEndMax, prometheus.GaugeValue, q.TxnEndMax.Seconds(), q.ID)
		}
		if q.Commits > 0 {
			ch <- prometheus.MustNewConstSummary(m.commit, uint64(q.Commits), q.CommitMean.Seconds()*float64(q.Commits), nil, q.ID)
			ch <- prometheus.MustNewConstMetric(m.commitMax, prometheus.GaugeValue, q.CommitMax.Seconds(), q.ID)
		}
		for _, c := range q.Nodes {
			ch <- prometheus.MustNewConstMetric(m.nodeRecords, prometheus.CounterValue, float64(c.Records), q.ID, strconv.Itoa(c.SubTopology), c.Node)
		}
		for task, lag := range q.ConsumerLags {
			ch <- prometheus.MustNewConstMetric(m.consumerLag, prometheus.GaugeValue, float64(lag), q.ID, task)
		}
		m.collectGlobals(ch, q)
		if !q.UpgradedAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(m.upgraded, prometheus.GaugeValue, float64(q.UpgradedAt.UnixMilli())/1000, q.ID)
		}
	}
	for _, s := range m.states {
		ch <- prometheus.MustNewConstMetric(m.queries, prometheus.GaugeValue, float64(states[s]), s)
	}
}

// collectGlobals exports q's global stores: their two nodes' records
// (beside the task sub-topologies' nodes), lag and rows.
func (m *Collector) collectGlobals(ch chan<- prometheus.Metric, q Query) {
	for _, g := range q.GlobalStores {
		sub := strconv.Itoa(g.SubTopology)
		for _, node := range []string{g.Source, g.Materialize} {
			ch <- prometheus.MustNewConstMetric(m.nodeRecords, prometheus.CounterValue, float64(g.Loaded), q.ID, sub, node)
		}
		if g.Lag >= 0 {
			ch <- prometheus.MustNewConstMetric(m.globalLag, prometheus.GaugeValue, float64(g.Lag), q.ID, g.Store)
		}
		ch <- prometheus.MustNewConstMetric(m.globalRows, prometheus.GaugeValue, float64(g.Rows), q.ID, g.Store)
	}
}
