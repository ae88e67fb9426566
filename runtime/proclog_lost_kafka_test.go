package runtime_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
)

// TestProcessingLogLossIsReported: processing-log entries whose writes
// the broker refuses are counted lost for their query, in DESCRIBE
// EXTENDED's error statistics, GET /tasks' figures and on /metrics, and once the log writes
// again an ENTRIES_LOST entry in the topic says how many were lost.
func TestProcessingLogLossIsReported(t *testing.T) {
	t.Parallel()
	f := newFaultRig(t)
	f.exec(`CREATE STREAM raw (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='raw', VALUE_FORMAT='JSON', PARTITIONS=1);
	  SET 'auto.offset.reset'='earliest';
	  CREATE STREAM copied AS SELECT * FROM raw;`)
	const logTopic = "default_ksql_processing_log"
	refused := f.refuseProduceTimes(logTopic, 2)
	f.produce("raw", "a", "not json")
	f.produce("raw", "b", "not json either")
	describe := func() string {
		for _, e := range f.exec("DESCRIBE copied EXTENDED;") {
			if d, ok := e.(api.SourceDescriptionEntity); ok {
				return d.SourceDescription.ErrorStats
			}
		}
		t.Fatal("no source description")
		return ""
	}
	waitFor(t, "two entries counted lost", func() bool { return strings.Contains(describe(), "processing-log-entries-lost: 2") })
	if refused.Load() != 2 {
		t.Fatalf("%d log writes refused, want 2", refused.Load())
	}
	if figs := f.e.TaskAssignments(); len(figs) != 1 || figs[0].Figures.LogLost != 2 {
		t.Fatalf("GET /tasks figures: %+v, want 2 entries lost", figs)
	}
	rec := httptest.NewRecorder()
	f.e.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if want := `sqlstream_query_processing_log_lost_total{query="CSAS_COPIED_1"} 2`; !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("/metrics lacks %s", want)
	}
	f.produce("raw", "c", "{bad")
	var report string
	waitFor(t, "an ENTRIES_LOST entry", func() bool {
		for _, r := range f.readTopic(logTopic, false) {
			var v struct {
				MESSAGE struct{ TYPE, QUERYID, ERRORMESSAGE string }
			}
			if err := json.Unmarshal(r.Value, &v); err == nil && v.MESSAGE.TYPE == "ENTRIES_LOST" && v.MESSAGE.QUERYID == "CSAS_COPIED_1" {
				report = v.MESSAGE.ERRORMESSAGE
				return true
			}
		}
		return false
	})
	if !strings.HasPrefix(report, "2 processing-log entries of query CSAS_COPIED_1 were lost (the last because its write failed") {
		t.Fatalf("report: %s", report)
	}
	if s := describe(); !strings.Contains(s, "consumer-failed-messages: 3") {
		t.Fatalf("error statistics: %s", s)
	}
}

// waitFor polls cond until it holds, failing after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
