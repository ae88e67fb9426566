package main

import (
	"strings"
	"testing"
)

// TestEngineFamilies: a peer's GET /metrics keeps its engine's families
// (a summary's _sum and _count with them), in name order, and loses the
// Go runtime's, the process's and the HTTP ones; an answer that is not
// Prometheus' text format is an error naming it.
func TestEngineFamilies(t *testing.T) {
	body := `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 12
# TYPE sqlstream_task_consumer_lag gauge
sqlstream_task_consumer_lag{query="Q",task="0_1"} 3
# TYPE sqlstream_http_requests_total counter
sqlstream_http_requests_total{code="200",method="GET",route="/info"} 2
# TYPE sqlstream_query_commit_seconds summary
sqlstream_query_commit_seconds_sum{query="Q"} 0.5
sqlstream_query_commit_seconds_count{query="Q"} 10
# TYPE sqlstream_query_records_processed_total counter
sqlstream_query_records_processed_total{query="Q"} 7
`
	got, err := engineFamilies([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := `# TYPE sqlstream_query_commit_seconds summary
sqlstream_query_commit_seconds_sum{query="Q"} 0.5
sqlstream_query_commit_seconds_count{query="Q"} 10
# TYPE sqlstream_query_records_processed_total counter
sqlstream_query_records_processed_total{query="Q"} 7
# TYPE sqlstream_task_consumer_lag gauge
sqlstream_task_consumer_lag{query="Q",task="0_1"} 3
`
	if got != want {
		t.Errorf("kept\n%s\nwant\n%s", got, want)
	}
	if _, err := engineFamilies([]byte("<html>login</html>")); err == nil || !strings.Contains(err.Error(), "not Prometheus' text format") {
		t.Errorf("an HTML answer: %v", err)
	}
}
