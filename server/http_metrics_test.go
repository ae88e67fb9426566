package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMetricsRuntimeAndHTTP: /metrics carries the Go runtime and process
// collectors and counts requests by route pattern and status, with an
// unknown path folded into route "other".
func TestMetricsRuntimeAndHTTP(t *testing.T) {
	h := New(newFakeEngine()).Handler()
	for _, path := range []string{"/info", "/info", "/no/such/path"} {
		h.ServeHTTP(httptest.NewRecorder(), localRequest("GET", path, nil))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, localRequest("GET", "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	for _, want := range []string{
		"go_goroutines ", "go_memstats_heap_alloc_bytes ", "process_resident_memory_bytes ",
		`sqlstream_http_requests_total{code="200",method="GET",route="/info"} 2`,
		`sqlstream_http_requests_total{code="404",method="GET",route="other"} 1`,
		`sqlstream_http_request_duration_seconds_count{method="GET",route="/info"} 2`,
		"sqlstream_http_requests_in_flight 1", // the /metrics request itself
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
}
