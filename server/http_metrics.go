package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// httpMetrics counts the server's requests for GET /metrics, labelled by
// chi's route pattern (an unknown path is "other", so a scanner cannot
// grow the label set).
type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sqlstream_http_requests_total",
			Help: "HTTP requests answered, by method, route and status code."}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sqlstream_http_request_duration_seconds",
			Help:    "Time from a request's arrival to the end of its answer (a push query's whole life), by method and route.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}, []string{"method", "route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlstream_http_requests_in_flight",
			Help: "HTTP requests being answered (running push queries included)."}),
	}
}

// registry gathers /metrics: the Go runtime and process collectors of
// the client library, the HTTP figures, and the engine's own
// (MetricsProvider).
func (s *Server) metricsRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.metrics.requests, s.metrics.duration, s.metrics.inFlight)
	if m, ok := s.engine.(MetricsProvider); ok {
		reg.MustRegister(m.MetricsCollector())
	}
	return reg
}

// metricsHandler serves GET /metrics in Prometheus' text format; a
// collector that fails is reported in the answer, not a 500.
func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metricsRegistry(), promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError,
		ErrorLog: slogPrinter{s}})
}

// slogPrinter hands promhttp's errors to the server's logger.
type slogPrinter struct{ s *Server }

func (p slogPrinter) Println(v ...any) { p.s.cfg.logger.Warn("gathering /metrics", "err", v) }

// instrument records each request in s.metrics. It sits inside chi's
// router so that the route pattern is known once the handler returns.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw, ok := w.(*statusWriter)
		if !ok {
			rw = &statusWriter{ResponseWriter: w}
		}
		s.metrics.inFlight.Inc()
		defer func() {
			s.metrics.inFlight.Dec()
			route := "other"
			if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
				route = rc.RoutePattern()
			}
			code := rw.status
			if !rw.wroteHeader {
				code = http.StatusOK
			}
			s.metrics.requests.WithLabelValues(r.Method, route, strconv.Itoa(code)).Inc()
			s.metrics.duration.WithLabelValues(r.Method, route).Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rw, r)
	})
}
