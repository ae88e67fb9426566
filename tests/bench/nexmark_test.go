package bench

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/nexmark"
)

// benchNexmarkQueries are BenchmarkNexmark's queries unless
// BENCH_NEXMARK_QUERIES names others: the two stateless ones, two
// windowed aggregations and two joins, the ones the profile findings
// (profile.md) cover.
const benchNexmarkQueries = "q0,q1,q5,q7,q3,q8"

// BenchmarkNexmark runs Nexmark queries in this process, on the embedded
// broker, so `go test -cpuprofile` profiles the engine (make nexmark runs
// them through the binary, profiled with NEXMARK_PROFILE): BENCH_NEXMARK_EVENTS
// events (default 50,000, at make nexmark's 1,250/s of event time) are
// loaded once, then each query runs alone on a fresh engine until its
// groups have committed the end of their input, and its sink is checked
// against the reference computation. Events per CPU-second are the whole
// process's (the broker's share included), so they are lower than make
// nexmark's engine-only figures. Run with -benchtime 1x.
//
// The query runs under the pprof label query=<name> (the engine's
// goroutines inherit it, the broker's do not), so `go tool pprof
// -tagfocus query=q0` shows the engine's part of a profile.
// BENCH_NEXMARK_PROPS (k=v,k=v) adds streams properties to the query's,
// to compare client settings (compression.type=none, linger.ms=100).
func BenchmarkNexmark(b *testing.B) {
	events := int64(50_000)
	if v := os.Getenv("BENCH_NEXMARK_EVENTS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("BENCH_NEXMARK_EVENTS=%q: want a positive integer", v)
		}
		events = n
	}
	names := benchNexmarkQueries
	if v := os.Getenv("BENCH_NEXMARK_QUERIES"); v != "" {
		names = v
	}
	extra := benchNexmarkProps(b)
	g, err := nexmark.NewGenerator(nexmark.Config{Seed: 7, Rate: 1250})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range strings.Split(names, ",") {
		q, ok := nexmark.Lookup(name)
		if !ok {
			b.Fatalf("no Nexmark query %s", name)
		}
		b.Run(q.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				e := nexmarkSetup(b, g, events) // a broker of its own: the sink's name is the query's
				b.StartTimer()
				run := func() { e.nexmarkQuery(b, q, "bnx_"+q.Name+"_", extra) }
				rate, cpu, _ := measureEvents(events, func() {
					pprof.Do(context.Background(), pprof.Labels("query", q.Name), func(context.Context) { run() })
				})
				b.ReportMetric(rate, "events/cpu-s")
				fmt.Printf("nexmark %s in process: %d events, %v CPU, %.0f events/CPU-s (broker included)\n", q.Name, events, cpu.Round(time.Millisecond), rate)
				e.checkNexmark(b, q, g, events)
				e.cl.Close()
				e.b.Close()
			}
		})
	}
}

// benchNexmarkProps parses BENCH_NEXMARK_PROPS (k=v,k=v).
func benchNexmarkProps(b *testing.B) map[string]any {
	props := map[string]any{}
	v := os.Getenv("BENCH_NEXMARK_PROPS")
	if v == "" {
		return props
	}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			b.Fatalf("BENCH_NEXMARK_PROPS=%q: want k=v,k=v", v)
		}
		props[k] = val
	}
	return props
}

// nexmarkSetup starts a broker holding the first events of g.
func nexmarkSetup(b *testing.B, g *nexmark.Generator, events int64) *env {
	e := joinSetup(b)
	if _, err := nexmark.Load(context.Background(), g, nexmark.LoadConfig{Brokers: e.b.Addrs(), Events: events}); err != nil {
		b.Fatal(err)
	}
	return e
}

// measureEvents runs fn and returns n events per CPU-second.
func measureEvents(n int64, fn func()) (float64, time.Duration, time.Duration) {
	cpu0, wall0 := cpuTime(), time.Now()
	fn()
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	return float64(n) / cpu.Seconds(), cpu, wall
}

// nexmarkQuery runs q on a fresh engine of service id sid until its
// groups have committed the end of their input.
func (e *env) nexmarkQuery(b *testing.B, q *nexmark.Query, sid string, extra map[string]any) {
	ctx := context.Background()
	eng, err := e.engine(ctx, sid, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	props := map[string]any{"auto.offset.reset": "earliest"}
	for k, v := range q.Properties {
		props[k] = v
	}
	for k, v := range extra {
		props[k] = v
	}
	if _, err := eng.Execute(ctx, api.KsqlRequest{Ksql: q.Script(), StreamsProperties: props}); err != nil {
		b.Fatalf("%s: %v", q.Name, err)
	}
	n := 0
	for _, s := range q.Statements {
		if strings.Contains(s, " AS SELECT ") {
			n++
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	if err := nexmark.WaitConsumed(wctx, e.adm, sid+"query_", n, 50*time.Millisecond); err != nil {
		b.Fatalf("%s: %v", q.Name, err)
	}
}

// checkNexmark compares q's sink with the reference computation.
func (e *env) checkNexmark(b *testing.B, q *nexmark.Query, g *nexmark.Generator, events int64) {
	recs, err := nexmark.ReadTopic(context.Background(), e.b.Addrs(), q.Sink)
	if err != nil {
		b.Fatal(err)
	}
	rows, err := q.Rows(recs)
	if err != nil {
		b.Fatal(err)
	}
	if bad := q.Check(rows, q.Reference(g.Input(events))); bad != "" {
		b.Errorf("%s: MISMATCH %s", q.Name, bad)
	}
}
