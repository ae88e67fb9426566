package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestCollect: a query's figures become its series; the global-table
// loads only for a query reading global tables, the transaction ends
// only once there were some; a global store's two nodes count its loaded
// records, its lag only once known; the upgrade time only for an
// upgraded query; every state is counted, 0 included.
func TestCollect(t *testing.T) {
	snap := func() []Query {
		return []Query{
			{ID: "Q1", State: "RUNNING", Processed: 5, Out: 3, Logged: 1, StreamTimes: map[string]int64{"0_0": 1000}, OpenWindows: map[string]int64{"0_0": 2},
				TxnEnds: 4, TxnEndMean: 10 * time.Millisecond, TxnEndMax: 30 * time.Millisecond},
			{ID: "Q2", State: "ERROR", Globals: true, GlobalLoaded: 7, UpgradedAt: time.UnixMilli(1500),
				GlobalStores: []GlobalStore{{Store: "G-GlobalStore", Source: "Source-G", Materialize: "G-GlobalStore-Materialize", SubTopology: 2, Loaded: 7, Lag: 3, Rows: 6},
					{Store: "H-GlobalStore", Source: "Source-H", Materialize: "H-GlobalStore-Materialize", SubTopology: 3, Lag: -1}}},
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(snap, []string{"PENDING", "RUNNING", "ERROR", "TERMINATED"}))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.Metric {
			key := f.GetName()
			for _, l := range m.Label {
				key += "," + l.GetValue()
			}
			switch {
			case m.Counter != nil:
				got[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				got[key] = m.Gauge.GetValue()
			case m.Summary != nil:
				got[key] = float64(m.Summary.GetSampleCount())
			}
		}
	}
	for key, want := range map[string]float64{
		"sqlstream_query_records_processed_total,Q1": 5, "sqlstream_query_records_out_total,Q1": 3, "sqlstream_query_processing_log_total,Q1": 1,
		"sqlstream_task_stream_time_ms,Q1,0_0": 1000, "sqlstream_task_open_windows,Q1,0_0": 2,
		"sqlstream_query_transaction_end_seconds,Q1": 4, "sqlstream_query_transaction_end_max_seconds,Q1": 0.03,
		"sqlstream_query_global_records_loaded_total,Q2":              7,
		"sqlstream_node_records_total,G-GlobalStore-Materialize,Q2,2": 7, "sqlstream_node_records_total,Source-G,Q2,2": 7,
		"sqlstream_global_store_lag,Q2,G-GlobalStore": 3, "sqlstream_global_store_rows,Q2,G-GlobalStore": 6,
		"sqlstream_query_upgraded_timestamp_seconds,Q2": 1.5,
		"sqlstream_queries,RUNNING":                     1, "sqlstream_queries,ERROR": 1, "sqlstream_queries,PENDING": 0,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", key, v, ok, want)
		}
	}
	for _, absent := range []string{"sqlstream_query_global_records_loaded_total,Q1", "sqlstream_query_transaction_end_seconds,Q2",
		"sqlstream_global_store_lag,Q2,H-GlobalStore", "sqlstream_query_upgraded_timestamp_seconds,Q1"} {
		if _, ok := got[absent]; ok {
			t.Errorf("%s exported", absent)
		}
	}
}
