package tests

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/nexmark"
	"github.com/twmb/franz-go/pkg/kadm"
)

// TestNexmarkSmall is the Nexmark run of make test, through the binary:
// `sqlstream nexmark` loads 5,000 events into a `sqlstream broker`
// process, then q1 (a projection), q4 (a windowed join and two
// aggregations) and q5 (hopping windows, EMIT FINAL) each run on a fresh
// engine until their input is consumed, and their sinks must hold
// exactly the rows of the reference computation. Nothing is timed, so
// the three engines run at once (each query's own service id, consumer
// groups and sink): most of a query's run is waiting (q4's join tasks
// wait its max.task.idle.ms at the end of their inputs, commits come
// every 2 s), not work.
func TestNexmarkSmall(t *testing.T) {
	run := newNexmarkRun(t, 5000, 250)
	for _, name := range []string{"q1", "q4", "q5"} {
		q, _ := nexmark.Lookup(name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if r := run.query(t, q); r.mismatch != "" {
				t.Errorf("%s: %s", name, r.mismatch)
			}
		})
	}
}

// TestNexmarkBenchmark is `make nexmark`: every query of the catalog on
// NEXMARK_EVENTS events (NEXMARK_RATE events per second of event time),
// each alone on a fresh engine process, its CPU-seconds read from
// /proc/<pid>/stat and its peak RSS from /proc/<pid>/status, with the
// garbage collector's pacing its start line names; one line per query on stdout and a Markdown table in
// NEXMARK_REPORT. NEXMARK_QUERIES (comma separated) runs some only.
// NEXMARK_PROFILE=<dir> starts each engine with --cpu-profile
// <dir>/<query>.pprof (from its ready line to its stop, which follows the
// measurement at once; the window measured starts after the health check).
func TestNexmarkBenchmark(t *testing.T) {
	events := nexmarkEnv(t, "NEXMARK_EVENTS", 0)
	if events == 0 {
		t.Skip("make nexmark sets NEXMARK_EVENTS")
	}
	run := newNexmarkRun(t, events, nexmarkEnv(t, "NEXMARK_RATE", 1250))
	var results []nexmarkResult
	for _, q := range nexmark.Queries() {
		if only := os.Getenv("NEXMARK_QUERIES"); only != "" && !strings.Contains(","+only+",", ","+q.Name+",") {
			continue
		}
		r := run.query(t, q)
		fmt.Println(r.line())
		if r.mismatch != "" {
			t.Errorf("%s: MISMATCH %s", q.Name, r.mismatch)
		}
		results = append(results, r)
	}
	if path := os.Getenv("NEXMARK_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(nexmarkTable(events, results)), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Println("nexmark: table written to", path)
	}
}

func nexmarkEnv(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// nexmarkRun is one broker process holding one load of events.
type nexmarkRun struct {
	t      *testing.T
	broker *node
	gen    *nexmark.Generator
	events int64
}

func newNexmarkRun(t *testing.T, events, rate int64) *nexmarkRun {
	broker := startBrokerProcess(t)
	code, out, errOut := runBinary(t, "nexmark", "--bootstrap-servers", broker.Kafka,
		"--events", strconv.FormatInt(events, 10), "--rate", strconv.FormatInt(rate, 10), "--seed", "7")
	if code != 0 {
		t.Fatalf("sqlstream nexmark exited %d: %s%s", code, out, errOut)
	}
	g, err := nexmark.NewGenerator(nexmark.Config{Seed: 7, Rate: rate})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(strings.TrimSpace(out))
	return &nexmarkRun{t: t, broker: broker, gen: g, events: events}
}

type nexmarkResult struct {
	q        *nexmark.Query
	events   int64
	cpu      float64 // engine CPU-seconds from the first statement to the input consumed
	rows     int
	mismatch string
	// peakRSS is the engine process's VmHWM in MiB once its input is
	// consumed; pacing is the garbage collector's pacing it ran with.
	peakRSS float64
	pacing  string
}

// query runs q alone on a fresh engine (its own service id, so no other
// query's commands replay) until its consumer groups have committed the
// end of their input, then checks its sink against the reference; t is
// the test (or subtest) it runs in.
func (r *nexmarkRun) query(t *testing.T, q *nexmark.Query) nexmarkResult {
	t.Helper()
	sid := "nx_" + q.Name + "_"
	args := []string{"--service-id", sid, "--log-level", "info"}
	if dir := os.Getenv("NEXMARK_PROFILE"); dir != "" {
		args = append(args, "--cpu-profile", filepath.Join(dir, q.Name+".pprof"))
	}
	srv := startServerOn(t, r.broker.Kafka, args...)
	before, brokerBefore, start := processCPU(t, srv.cmd.Process.Pid), processCPU(t, r.broker.cmd.Process.Pid), time.Now()
	props := map[string]any{"auto.offset.reset": "earliest"}
	for k, v := range q.Properties {
		props[k] = v
	}
	if status, v := srv.ksql(q.Script(), props); status != http.StatusOK {
		t.Fatalf("%s: /ksql answered %d: %v", q.Name, status, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	adm := kadm.NewClient(kafkaClient(t, r.broker.Kafka))
	if err := nexmark.WaitConsumed(ctx, adm, sid+"query_", persistentQueries(q), 100*time.Millisecond); err != nil {
		t.Fatalf("%s: %v\n%s", q.Name, err, srv.Logs())
	}
	res := nexmarkResult{q: q, events: r.events, cpu: processCPU(t, srv.cmd.Process.Pid) - before,
		peakRSS: processPeakRSS(t, srv.cmd.Process.Pid), pacing: enginePacing(srv.Logs())}
	// Beside the engine's figure, not in it: the wall time and the
	// broker's CPU over the same window (the broker shares the machine's
	// cores, so its work slows the engine's without being counted).
	t.Logf("%s: window %.2f s wall, engine %.2f CPU-s, broker %.2f CPU-s", q.Name, time.Since(start).Seconds(),
		res.cpu, processCPU(t, r.broker.cmd.Process.Pid)-brokerBefore)
	// Stopped now, so that a profile (NEXMARK_PROFILE) ends where the
	// measured window ends, not after the check below.
	srv.stop()
	recs, err := nexmark.ReadTopic(ctx, []string{r.broker.Kafka}, q.Sink)
	if err != nil {
		t.Fatalf("%s: %v", q.Name, err)
	}
	rows, err := q.Rows(recs)
	if err != nil {
		t.Fatalf("%s: %v", q.Name, err)
	}
	res.rows = len(rows)
	want := q.Reference(r.gen.Input(r.events))
	res.mismatch = q.Check(rows, want)
	if len(want) == 0 {
		// A check of nothing proves nothing: too few events for a window
		// to close.
		res.mismatch = "the reference expects no rows: give more events or a lower rate"
	}
	t.Logf("%s: %d rows in %s", q.Name, len(rows), q.Sink)
	return res
}

func persistentQueries(q *nexmark.Query) int {
	n := 0
	for _, s := range q.Statements {
		if strings.Contains(s, " AS SELECT ") {
			n++
		}
	}
	return n
}

// processCPU is the user plus system CPU-seconds of process pid
// (/proc/<pid>/stat fields 14 and 15, in clock ticks of 1/100 s).
func processCPU(t *testing.T, pid int) float64 {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		t.Fatalf("engine CPU: %v", err)
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return float64(utime+stime) / 100
}

// processPeakRSS is the peak resident set size of process pid in MiB
// (VmHWM in /proc/<pid>/status).
func processPeakRSS(t *testing.T, pid int) float64 {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatalf("engine peak RSS: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				t.Fatalf("engine peak RSS: %q: %v", line, err)
			}
			return kib / 1024
		}
	}
	t.Fatalf("engine peak RSS: no VmHWM in /proc/%d/status", pid)
	return 0
}

// pacingLine is the server's start line naming its garbage collector's
// pacing (cmd/sqlstream/internal/cli: sqlstream.gc.percent and
// sqlstream.memory.limit).
var pacingLine = regexp.MustCompile(`msg="garbage collector pacing" gc_percent=(\S+) gc_percent_from=("[^"]*"|\S+) memory_limit=(\S+) memory_limit_from=("[^"]*"|\S+)`)

// enginePacing is the pacing a server's log says it runs with; a binary
// without the start line ran at Go's defaults (GOGC and GOMEMLIMIT from
// the environment, else 100 and none).
func enginePacing(logs string) string {
	m := pacingLine.FindStringSubmatch(logs)
	if m == nil {
		return fmt.Sprintf("Go's (GOGC=%q GOMEMLIMIT=%q)", os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"))
	}
	return fmt.Sprintf("gc %s (%s), limit %s (%s)", m[1], strings.Trim(m[2], `"`), m[3], strings.Trim(m[4], `"`))
}

func (r nexmarkResult) perCPU() float64 { return float64(r.events) / max(r.cpu, 0.01) }

func (r nexmarkResult) verdict() string {
	if r.mismatch != "" {
		return "MISMATCH " + r.mismatch
	}
	return "verified"
}

// line is make nexmark's line for the query.
func (r nexmarkResult) line() string {
	ratio := "n/a"
	if r.q.FlinkV2 > 0 {
		ratio = ratioText(r.perCPU() / r.q.FlinkV2)
	}
	return fmt.Sprintf("nexmark %s: %d events, %.2f engine CPU-s, %.0f events/CPU-s, Flink V2 %s/core, ratio %s, peak RSS %.0f MiB, GC %s, %s",
		r.q.Name, r.events, r.cpu, r.perCPU(), perCore(r.q.FlinkV2), ratio, r.peakRSS, r.pacing, r.verdict())
}

func perCore(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v < 10_000:
		return fmt.Sprintf("%.1fK", v/1000)
	}
	return fmt.Sprintf("%.0fK", v/1000)
}

// ratioText keeps two significant digits of small ratios.
func ratioText(r float64) string {
	if r < 0.1 {
		return fmt.Sprintf("%.3f", r)
	}
	return fmt.Sprintf("%.2f", r)
}

func nexmarkTable(events int64, results []nexmarkResult) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# Nexmark: sqlstream vs published figures (events/s per core)\n\n"+
		"%d events per query, JSON, one engine process per query on a separate `sqlstream broker`; "+
		"ours = events ÷ the engine process's CPU-seconds (utime+stime) from its first statement to its "+
		"input consumed; peak RSS is its VmHWM then. Flink V1, Flink V2 and Feldera per core are from ../shared/reference/nexmark.md §3.\n\n", events)
	sb.WriteString("| q | ours | Flink V1 | Flink V2 | Feldera | ours ÷ Flink V2 | engine CPU-s | peak RSS MiB | rows | check |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		ratio := "–"
		if r.q.FlinkV2 > 0 {
			ratio = ratioText(r.perCPU() / r.q.FlinkV2)
		}
		check := "verified"
		if r.mismatch != "" {
			check = "MISMATCH"
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %.2f | %.0f | %d | %s |\n", r.q.Name, perCore(r.perCPU()),
			perCore(r.q.FlinkV1), perCore(r.q.FlinkV2), perCore(r.q.Feldera), ratio, r.cpu, r.peakRSS, r.rows, check)
	}
	return sb.String()
}

// TestNexmarkRegistryFormats: `sqlstream nexmark --format AVRO`
// (JSON_SR, PROTOBUF) registers its schemas with the server's embedded
// registry and writes Confluent's wire format; streams over the topics
// infer their columns from the registry, and every bid and person read
// through them (re-written as JSON) is the generator's. (The streams
// name no TIMESTAMP column: the engine checks it before it infers the
// columns and refuses it; the records' timestamps are the event times
// anyway.)
// The three formats run at once, each on its own server.
func TestNexmarkRegistryFormats(t *testing.T) {
	for _, format := range []string{"AVRO", "JSON_SR", "PROTOBUF"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			nexmarkRegistryFormat(t, format)
		})
	}
}

func nexmarkRegistryFormat(t *testing.T, format string) {
	n := startNode(t)
	code, out, errOut := runBinary(t, "nexmark", "--bootstrap-servers", n.Kafka, "--format", format,
		"--schema-registry-url", registryURL(t, n), "--events", "2000", "--rate", "1000", "--seed", "3")
	if code != 0 {
		t.Fatalf("sqlstream nexmark exited %d: %s%s", code, out, errOut)
	}
	n.mustKsql(fmt.Sprintf(`CREATE STREAM bid WITH (KAFKA_TOPIC='nexmark-bid', VALUE_FORMAT='%[1]s');
	CREATE STREAM person (id BIGINT KEY) WITH (KAFKA_TOPIC='nexmark-person', KEY_FORMAT='KAFKA', VALUE_FORMAT='%[1]s');`, format))
	props := map[string]any{"auto.offset.reset": "earliest"}
	for _, s := range []string{
		"CREATE STREAM bid_json WITH (KAFKA_TOPIC='bid_json', VALUE_FORMAT='JSON') AS SELECT * FROM bid;",
		"CREATE STREAM person_json WITH (KAFKA_TOPIC='person_json', VALUE_FORMAT='JSON') AS SELECT * FROM person;",
	} {
		if status, v := n.ksql(s, props); status != http.StatusOK {
			t.Fatalf("%s: %d %v", s, status, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := nexmark.WaitConsumed(ctx, kadm.NewClient(kafkaClient(t, n.Kafka)), "default_query_", 2, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	g, _ := nexmark.NewGenerator(nexmark.Config{Seed: 3, Rate: 1000})
	var bids, persons []nexmark.Row
	for ev := range g.Events(2000) {
		switch ev.Kind {
		case nexmark.KindBid:
			b := ev.Bid
			bids = append(bids, nexmark.Row{"AUCTION": b.Auction, "BIDDER": b.Bidder, "PRICE": b.Price, "CHANNEL": b.Channel,
				"URL": b.URL, "DATE_TIME": b.DateTime, "EXTRA": b.Extra})
		case nexmark.KindPerson:
			p := ev.Person
			persons = append(persons, nexmark.Row{"ID": p.ID, "NAME": p.Name, "EMAIL_ADDRESS": p.EmailAddress,
				"CREDIT_CARD": p.CreditCard, "CITY": p.City, "STATE": p.State, "DATE_TIME": p.DateTime, "EXTRA": p.Extra})
		}
	}
	check := func(q *nexmark.Query, want []nexmark.Row) {
		recs, err := nexmark.ReadTopic(ctx, []string{n.Kafka}, q.Sink)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := q.Rows(recs)
		if err != nil {
			t.Fatal(err)
		}
		if d := q.Check(rows, want); d != "" {
			t.Errorf("%s: %s", q.Sink, d)
		}
	}
	check(&nexmark.Query{Sink: "bid_json", Columns: []string{"AUCTION", "BIDDER", "PRICE", "CHANNEL", "URL", "DATE_TIME", "EXTRA"}}, bids)
	check(&nexmark.Query{Sink: "person_json", Key: nexmark.KeyBigint, KeyColumns: []string{"ID"},
		Columns: []string{"ID", "NAME", "EMAIL_ADDRESS", "CREDIT_CARD", "CITY", "STATE", "DATE_TIME", "EXTRA"}}, persons)
}
