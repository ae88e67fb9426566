package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
)

// guaranteed is one stateful query run under one processing guarantee.
type guaranteed struct {
	name, guarantee string
	ksql            string // %[1]s is the sink's name
}

// txnEnds is what an engine's /metrics said of its transaction ends.
type txnEnds struct {
	n          float64
	mean, peak time.Duration
}

// guaranteeQuery runs q as the only query of an engine of its own (service
// id and sink named after the query and guarantee) until its sink holds
// one output per input record (at_least_once) or its group has committed
// the end of the input (exactly_once_v2). It returns the transaction ends the
// engine measured.
func (e *env) guaranteeQuery(b *testing.B, q guaranteed) txnEnds {
	ctx := context.Background()
	tag := q.name + "_" + strings.ReplaceAll(q.guarantee, "_", "")
	eng, err := runtime.New(ctx, runtime.WithBootstrap(e.b.Addrs()), runtime.WithServiceID(tag+"_"),
		runtime.WithDataDir(b.TempDir()), runtime.WithLogger(slog.New(slog.DiscardHandler)),
		runtime.WithProperties(map[string]string{props.Guarantee: q.guarantee}))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	sink := strings.ToUpper(tag)
	ents, err := eng.Execute(ctx, api.KsqlRequest{
		Ksql: `CREATE STREAM pv (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON', TIMESTAMP='MS');` + fmt.Sprintf(q.ksql, sink),
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	id := queryID(ents)
	if id == "" {
		b.Fatalf("%s returned no query id: %#v", q.name, ents)
	}
	// The outputs are the cache's flushes, under either guarantee: fewer
	// than the inputs when keys repeat within a commit. All are in once
	// the input's end is committed.
	e.waitCommitted(b, tag+"_query_"+id)
	return transactionEnds(b, eng)
}

// waitCommitted waits until group has committed the end of the input.
func (e *env) waitCommitted(b *testing.B, group string) {
	ends, err := e.adm.ListEndOffsets(context.Background(), inputTopic)
	if err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		offs, err := e.adm.FetchOffsets(context.Background(), group)
		done := err == nil
		ends.Each(func(o kadm.ListedOffset) {
			if c, ok := offs.Lookup(inputTopic, o.Partition); !ok || c.At < o.Offset {
				done = false
			}
		})
		if done {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("group %s did not commit the end of %s", group, inputTopic)
}

// transactionEnds reads the transaction end summary of the engine's one
// query from its metrics (zero under at_least_once).
func transactionEnds(b *testing.B, eng *runtime.Engine) txnEnds {
	rec := httptest.NewRecorder()
	eng.MetricsHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	var sum, maxS float64
	var t txnEnds
	for _, l := range strings.Split(rec.Body.String(), "\n") {
		name, v, ok := metricLine(l)
		if !ok {
			continue
		}
		switch name {
		case "sqlstream_query_transaction_end_seconds_sum":
			sum = v
		case "sqlstream_query_transaction_end_seconds_count":
			t.n = v
		case "sqlstream_query_transaction_end_max_seconds":
			maxS = v
		}
	}
	if t.n > 0 {
		t.mean = time.Duration(sum / t.n * float64(time.Second))
	}
	t.peak = time.Duration(maxS * float64(time.Second))
	return t
}

// metricLine splits `name{labels} value`.
func metricLine(l string) (string, float64, bool) {
	name, rest, ok := strings.Cut(l, "{")
	if !ok || strings.HasPrefix(l, "#") {
		return "", 0, false
	}
	_, val, ok := strings.Cut(rest, "} ")
	if !ok {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	return name, v, err == nil
}

// BenchmarkGuarantees is issue 11's benchmark: the GROUP BY and TUMBLING
// counts of BenchmarkGroupByCount and BenchmarkTumblingCount under
// exactly_once_v2 beside at_least_once in one run, over the same 1M
// events: events per CPU-second of each, their ratio (issue 11 asked ≥ 0.8, issue 21 ≥ 0.9) and
// how long transaction ends took.
func BenchmarkGuarantees(b *testing.B) {
	e := setup(b)
	defer e.b.Close()
	defer e.cl.Close()
	queries := []guaranteed{
		{name: "byuser", ksql: `CREATE TABLE %[1]s AS SELECT USER_ID, COUNT(*) AS N FROM pv GROUP BY USER_ID EMIT CHANGES;`},
		{name: "tumbling", ksql: `CREATE TABLE %[1]s AS SELECT USER_ID, COUNT(*) AS N FROM pv
		         WINDOW TUMBLING (SIZE 60 SECONDS) GROUP BY USER_ID EMIT CHANGES;`},
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nprocessing guarantees over %d JSON page views (%d partitions, %d keys), changelog on:\n", numEvents, partitions, numKeys)
		for _, q := range queries {
			rate := map[string]float64{}
			for _, g := range []string{"at_least_once", "exactly_once_v2"} {
				q.guarantee = g
				var ends txnEnds
				r, cpu, wall := measure(phase(q.name+"-"+g, func() { ends = e.guaranteeQuery(b, q) }))
				rate[g] = r
				b.ReportMetric(r, q.name+"-"+g+"-events/cpu-s")
				fmt.Printf("  %-9s %-16s %9.0f events/CPU-s  (cpu %v, wall %v)", q.name, g, r, cpu.Round(time.Millisecond), wall.Round(time.Millisecond))
				if ends.n > 0 {
					b.ReportMetric(float64(ends.mean.Microseconds())/1000, q.name+"-txn-end-mean-ms")
					fmt.Printf("; %.0f transaction ends, mean %v, max %v", ends.n, ends.mean.Round(time.Microsecond), ends.peak.Round(time.Microsecond))
				}
				fmt.Println()
			}
			ratio := rate["exactly_once_v2"] / rate["at_least_once"]
			b.ReportMetric(ratio, q.name+"-ratio-eos/alos")
			fmt.Printf("  %-9s ratio exactly_once_v2 / at_least_once: %.2f (issue 21: ≥ 0.9)\n", q.name, ratio)
		}
	}
}
