package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Each user has numEvents/numKeys page views.
const (
	viewsPerUser = numEvents / numKeys
	pageService  = "bench_page_"
)

// countValue is the hand loop's output record.
type countValue struct {
	N int64 `json:"N"`
}

// countLoop is what a developer would write without sqlstream: a map of
// counts by user in handLoop's frame, one output per input record. The map is in memory only: unlike
// the engine it writes no changelog.
func (e *env) countLoop(b *testing.B) {
	counts := make(map[string]int64)
	e.handLoop(b, "count-loop", "hand-counts", numEvents, func(pv pageView, r *kgo.Record) *kgo.Record {
		counts[pv.UserID]++
		v, _ := json.Marshal(countValue{N: counts[pv.UserID]})
		return &kgo.Record{Key: []byte(pv.UserID), Value: v, Timestamp: r.Timestamp}
	})
}

// aggregation is one CTAS … GROUP BY variant.
type aggregation struct {
	service string // ksql.service.id: each variant has its own command topic
	sink    string
	groupBy string
}

// countQuery runs the aggregation as a persistent query on an engine whose
// state lives in dir, waits until its group has committed every input
// record (a table's updates collapse per key within a commit, as Kafka
// Streams' cache forwards them: the sink holds fewer records than the
// input, all of them in once the input's end is committed), closes the
// engine and returns the query id.
func (e *env) countQuery(b *testing.B, a aggregation, dir string) string {
	ctx := context.Background()
	eng, err := e.engine(ctx, a.service, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	ents, err := eng.Execute(ctx, api.KsqlRequest{
		Ksql: fmt.Sprintf(`CREATE STREAM pageviews (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON');
		       CREATE TABLE %s AS SELECT %s, COUNT(*) AS N FROM pageviews GROUP BY %s EMIT CHANGES;`,
			a.sink, a.groupBy, a.groupBy),
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	id := queryID(ents)
	if id == "" {
		b.Fatalf("CTAS %s returned no query id: %#v", a.sink, ents)
	}
	waitCommitted(b, e.adm, a.service+"query_"+id, inputTopic, numEvents)
	return id
}

func (e *env) engine(ctx context.Context, service, dir string) (*runtime.Engine, error) {
	return runtime.New(ctx, runtime.WithBootstrap(e.b.Addrs()), runtime.WithServiceID(service),
		runtime.WithDataDir(dir), runtime.WithLogger(slog.New(slog.DiscardHandler)))
}

// queryID is the query id in the last command status of a request.
func queryID(ents []api.Entity) string {
	for i := len(ents) - 1; i >= 0; i-- {
		if cs, ok := ents[i].(api.CommandStatusEntity); ok && cs.CommandStatus.QueryID != nil {
			return *cs.CommandStatus.QueryID
		}
	}
	return ""
}

// restore is what the restore measurement saw.
type restore struct {
	offsets int64 // changelog end offsets, summed over partitions
	live    int64 // records left in the changelog (after compaction), all restored
	cpu     time.Duration
	wall    time.Duration
}

// restoreStore starts a fresh engine (same service id, so the command topic
// replays the CTAS; empty state dir, so the store is rebuilt from its
// changelog) and measures the time until a pull query sees the final
// counts of one user per partition.
func (e *env) restoreStore(b *testing.B, dir, id string) restore {
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	changelog := "default_query_" + id + "-Aggregate-Aggregate-Materialize-changelog"
	// Counted before the restore, outside the measurement: the broker's
	// cleaner may have compacted the changelog already.
	var r restore
	r.offsets = e.endOffsets(b, changelog)
	r.live = e.countRecords(b, changelog, r.offsets)
	ctx := context.Background()
	cpu0, wall0 := cpuTime(), time.Now()
	eng, err := e.engine(ctx, "default_", dir)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	probes := probeUsers()
	deadline := wall0.Add(5 * time.Minute)
	for {
		counts, err := pullCounts(ctx, eng, probes)
		if err != nil {
			b.Fatal(err)
		}
		if restored(counts, probes) {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("store not restored after 5m: counts %v, want %d for each of %v", counts, viewsPerUser, probes)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.cpu, r.wall = cpuTime()-cpu0, time.Since(wall0)
	return r
}

// probeUsers picks the last user of each store partition (grouping by the
// key keeps the input's partitioning), so the store counts as restored
// only when every partition is.
func probeUsers() []string {
	var users []string
	seen := map[int32]bool{}
	for i := numKeys - 1; i >= 0 && len(seen) < partitions; i-- {
		u := "user_" + strconv.Itoa(i)
		if p := exec.DefaultPartition([]byte(u), partitions); !seen[p] {
			seen[p] = true
			users = append(users, u)
		}
	}
	return users
}

func restored(counts map[string]int64, users []string) bool {
	for _, u := range users {
		if counts[u] != viewsPerUser {
			return false
		}
	}
	return true
}

// pullCounts returns the users' counts in VIEWS_PER_USER (absent users
// are missing from the map), with one pull query.
func pullCounts(ctx context.Context, eng *runtime.Engine, users []string) (map[string]int64, error) {
	rs, err := eng.Query(ctx, "SELECT * FROM views_per_user WHERE USER_ID IN ('"+strings.Join(users, "', '")+"');", nil, nil)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	counts := map[string]int64{}
	for {
		row, err := rs.Next(ctx)
		if errors.Is(err, io.EOF) {
			return counts, nil
		}
		if err != nil {
			return nil, err
		}
		if len(row.Values) != 2 {
			return nil, fmt.Errorf("pull query row %v: want USER_ID, N", row.Values)
		}
		u, ok1 := row.Values[0].(string)
		n, ok2 := row.Values[1].(int64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("pull query row %#v: want string, int64", row.Values)
		}
		counts[u] = n
	}
}

func (e *env) endOffsets(b *testing.B, topic string) int64 {
	ends, err := e.adm.ListEndOffsets(context.Background(), topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		b.Fatalf("end offsets of %s: %v", topic, err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	return total
}

// countRecords reads topic up to its end offsets (total ends) and returns
// how many records it still holds.
func (e *env) countRecords(b *testing.B, topic string, ends int64) int64 {
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.b.Addrs()...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	var n int64
	for {
		// Compaction leaves offset gaps, so "done" is a poll that stays
		// empty, or the last offset of every partition seen.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		fs := cl.PollRecords(ctx, 10_000)
		cancel()
		if fs.NumRecords() == 0 {
			return n
		}
		n += int64(fs.NumRecords())
		if n >= ends {
			return n
		}
	}
}

// phase labels fn's CPU profile samples (and those of the goroutines it
// starts, such as the engine's tasks) with phase=name, so a -cpuprofile
// of the run can be split with -tagfocus. The broker's goroutines predate
// the phases and stay unlabelled.
func phase(name string, fn func()) func() {
	return func() { pprof.Do(context.Background(), pprof.Labels("phase", name), func(context.Context) { fn() }) }
}

// peakRSS returns the process's peak resident set size (VmHWM).
func peakRSS() string { return procStatus("VmHWM:") }

// procStatus returns one field of /proc/self/status, "n/a" if absent.
func procStatus(field string) string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), field); ok {
			return strings.TrimSpace(v)
		}
	}
	return "n/a"
}

// resetPeakRSS restarts VmHWM from the current RSS (Linux ≥ 4.0), so each
// phase reports its own peak; it reports whether that worked.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// kiB parses a VmHWM value ("123456 kB") as a number of KiB.
func kiB(v string) float64 {
	n, _ := strconv.ParseFloat(strings.TrimSuffix(v, " kB"), 64)
	return n
}

// BenchmarkGroupByCount is issue 4's benchmark: CTAS … COUNT(*) GROUP BY
// (changelog on) vs the hand loop with a Go map, then the store's restore
// rate from its changelog. Run with -benchtime 1x; one iteration
// processes 1M events per variant.
func BenchmarkGroupByCount(b *testing.B) {
	e := setup(b)
	defer e.b.Close()
	defer e.cl.Close()
	byUser := aggregation{service: "default_", sink: "VIEWS_PER_USER", groupBy: "USER_ID"}
	byPage := aggregation{service: pageService, sink: "VIEWS_PER_PAGE", groupBy: "PAGE"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := procStatus("VmRSS:") // the broker holding the input, mostly
		resets := resetPeakRSS()
		hand, hcpu, hwall := measure(phase("hand", func() { e.countLoop(b) }))
		hrss := peakRSS()

		resetPeakRSS()
		dir := b.TempDir()
		var id string
		user, ucpu, uwall := measure(phase("by-user", func() { id = e.countQuery(b, byUser, dir) }))
		urss := peakRSS()

		resetPeakRSS()
		var rs restore
		phase("restore", func() { rs = e.restoreStore(b, dir, id) })()
		rrss := peakRSS()

		resetPeakRSS()
		page, pcpu, pwall := measure(phase("by-page", func() { e.countQuery(b, byPage, b.TempDir()) }))
		prss := peakRSS()

		restoreRate := float64(rs.live) / rs.wall.Seconds()
		b.ReportMetric(hand, "hand-events/cpu-s")
		b.ReportMetric(user, "engine-user-events/cpu-s")
		b.ReportMetric(page, "engine-page-events/cpu-s")
		b.ReportMetric(user/hand, "ratio-user")
		b.ReportMetric(page/hand, "ratio-page")
		b.ReportMetric(restoreRate, "restore-records/s")
		b.ReportMetric(float64(rs.offsets)/rs.wall.Seconds(), "restore-offsets/s")
		b.ReportMetric(kiB(urss)/1024, "engine-user-peak-MiB")

		peak := "peak RSS"
		if !resets {
			peak = "peak RSS so far" // VmHWM could not be reset: it only grows
		}
		fmt.Printf("\nCOUNT(*) GROUP BY over %d JSON page views (%d partitions, %d keys), changelog on:\n", numEvents, partitions, numKeys)
		fmt.Printf("  hand-written loop (Go map):   %9.0f events/CPU-s  (cpu %v, wall %v, %s %s)\n", hand, hcpu.Round(time.Millisecond), hwall.Round(time.Millisecond), peak, hrss)
		fmt.Printf("  sqlstream GROUP BY USER_ID:   %9.0f events/CPU-s  (cpu %v, wall %v, %s %s)\n", user, ucpu.Round(time.Millisecond), uwall.Round(time.Millisecond), peak, urss)
		fmt.Printf("  sqlstream GROUP BY PAGE:      %9.0f events/CPU-s  (cpu %v, wall %v, %s %s; re-partitions)\n", page, pcpu.Round(time.Millisecond), pwall.Round(time.Millisecond), peak, prss)
		fmt.Printf("  ratio engine/hand: by key %.2f, by PAGE %.2f (issue 21: by key ≥ 1.0, by PAGE ≥ 0.9)\n", user/hand, page/hand)
		fmt.Printf("  restore %s store from changelog: %d offsets (%d records left after compaction) in wall %v (cpu %v; from engine start until a pull query sees the final count of one user per partition): %.0f records/s (%.0f offsets/s), %s %s\n",
			id, rs.offsets, rs.live, rs.wall.Round(time.Millisecond), rs.cpu.Round(time.Millisecond), restoreRate, float64(rs.offsets)/rs.wall.Seconds(), peak, rrss)
		fmt.Printf("  RSS is the whole process's: the embedded broker holds every topic (input, outputs, changelogs) in it too; %s after generating the input.\n", base)
	}
}
