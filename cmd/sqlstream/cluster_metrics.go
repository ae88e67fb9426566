package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/server"
)

// ClusterMetrics implements server.ClusterMetricsLister: this server's
// engine metrics, then each other server's GET /metrics (asked as a peer
// with the request's user, as ClusterTasks asks GET /tasks) cut to its
// engine's families; a server that does not answer, or answers with
// something that is not Prometheus' text format, is marked with why.
func (e taskEngine) ClusterMetrics(ctx context.Context) api.ClusterMetrics {
	self := api.HostMetrics{Host: e.HostKey(), Self: true}
	self.Metrics, self.Error = e.ownMetrics()
	out := api.ClusterMetrics{Hosts: []api.HostMetrics{self}}
	for _, a := range e.GatherFromPeers(ctx, "/metrics") {
		h := api.HostMetrics{Host: a.Key}
		if a.Err == nil {
			h.Metrics, a.Err = engineFamilies(a.Body)
		}
		if a.Err != nil {
			h.Error, h.Metrics = a.Err.Error(), ""
		}
		out.Hosts = append(out.Hosts, h)
	}
	return out
}

// ownMetrics is this engine's collector in Prometheus' text format, as
// GET /metrics has its families.
func (e taskEngine) ownMetrics() (string, string) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e.MetricsCollector())
	families, err := reg.Gather()
	text, werr := familiesText(families)
	if err == nil {
		err = werr
	}
	if err != nil {
		return text, "gathering this server's metrics: " + err.Error()
	}
	return text, ""
}

// engineFamilies keeps the engine's families of a peer's GET /metrics
// answer: those named sqlstream_ but not sqlstream_http_ (the server's
// own), which leaves out the Go runtime's, the process's and the HTTP
// figures the console does not chart.
func engineFamilies(body []byte) (string, error) {
	var p expfmt.TextParser
	all, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("its GET /metrics answer is not Prometheus' text format: %w", err)
	}
	var keep []*dto.MetricFamily
	for name, f := range all {
		if strings.HasPrefix(name, "sqlstream_") && !strings.HasPrefix(name, "sqlstream_http_") {
			keep = append(keep, f)
		}
	}
	slices.SortFunc(keep, func(a, b *dto.MetricFamily) int { return strings.Compare(a.GetName(), b.GetName()) })
	return familiesText(keep)
}

// familiesText writes families in Prometheus' text format.
func familiesText(families []*dto.MetricFamily) (string, error) {
	var b strings.Builder
	for _, f := range families {
		if _, err := expfmt.MetricFamilyToText(&b, f); err != nil {
			return b.String(), fmt.Errorf("writing %s: %w", f.GetName(), err)
		}
	}
	return b.String(), nil
}

var _ server.ClusterMetricsLister = taskEngine{}
