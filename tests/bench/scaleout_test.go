package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/broker"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// scalePartitions splits evenly over 1, 2 and 3 processes.
const scalePartitions = 6

// serverProc is one `sqlstream server` process of the scale-out run.
type serverProc struct {
	cmd  *exec.Cmd
	logs *syncBuffer
	url  string
}

// syncBuffer collects a process's output while the benchmark reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// buildServer builds the sqlstream binary into dir.
func buildServer(b *testing.B, dir string) string {
	bin := filepath.Join(dir, "sqlstream")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/sqlstream")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServer starts a server on kafka with the config file cfg and
// waits for its ready line.
func startServer(b *testing.B, bin, kafka, cfg string) *serverProc {
	dir := b.TempDir()
	p := &serverProc{logs: &syncBuffer{}}
	p.cmd = exec.Command(bin, "server", "--listen", "127.0.0.1:0", "--bootstrap-servers", kafka,
		"--data-dir", dir, "--config", cfg)
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	ready := regexp.MustCompile(`msg="sqlstream ready" url=(\S+)`)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if m := ready.FindStringSubmatch(p.logs.String()); m != nil {
			p.url = m[1]
			return p
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.stop()
	b.Fatalf("server not ready:\n%s", p.logs.String())
	return nil
}

func (p *serverProc) stop() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// cpu is the process's user + system time so far.
func (p *serverProc) cpu(b *testing.B) time.Duration { return processCPU(b, p.cmd.Process.Pid) }

// processCPU is process pid's user + system time so far (/proc/<pid>/stat,
// in clock ticks of 10 ms).
func processCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// Fields after the parenthesised command name; utime and stime are
	// fields 14 and 15 of the whole line.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// ksql posts statements to the server.
func (p *serverProc) ksql(b *testing.B, sql string) {
	body, _ := json.Marshal(map[string]any{"ksql": sql, "streamsProperties": map[string]any{"ksql.streams.auto.offset.reset": "earliest"}})
	resp, err := http.Post(p.url+"/ksql", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d %s", sql, resp.StatusCode, out.String())
	}
}

// scaleRun is one run's figures.
type scaleRun struct {
	procs int
	cpu   time.Duration // of the server processes
	wall  time.Duration // from the first produced event to the last committed
	prod  time.Duration // of which producing the events took
	// pacing is the garbage collector's pacing the servers ran with.
	pacing string
}

// runScale runs CTAS … COUNT(*) GROUP BY over numEvents events on procs
// server processes of one service id: the query first, until every
// process holds its share of the tasks, then the events, until the
// query's group has committed the end of the input.
func runScale(b *testing.B, bin string, br *broker.Broker, adm *kadm.Client, cl *kgo.Client, procs int) scaleRun {
	ctx := context.Background()
	service := fmt.Sprintf("scale%d_", procs)
	topic := fmt.Sprintf("scale-events-%d", procs)
	if _, err := adm.CreateTopic(ctx, scalePartitions, 1, nil, topic); err != nil {
		b.Fatal(err)
	}
	cfgPath := filepath.Join(b.TempDir(), "sqlstream.properties")
	cfg := "ksql.service.id=" + service + "\nsqlstream.command.topic.secret=scale-out-benchmark-secret\n"
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	var servers []*serverProc
	for i := 0; i < procs; i++ {
		s := startServer(b, bin, br.Addrs()[0], cfgPath)
		defer s.stop()
		servers = append(servers, s)
	}
	servers[0].ksql(b, fmt.Sprintf(`CREATE STREAM ev (USER_ID VARCHAR KEY, PAGE VARCHAR) WITH (KAFKA_TOPIC='%s', VALUE_FORMAT='JSON');
	  CREATE TABLE counts AS SELECT USER_ID, COUNT(*) AS N FROM ev GROUP BY USER_ID;`, topic))
	group := waitMembers(b, adm, service, procs)
	cpu0 := serversCPU(b, servers)
	start := time.Now()
	produceEvents(b, cl, topic)
	prod := time.Since(start)
	waitCommitted(b, adm, group, topic, numEvents)
	return scaleRun{procs: procs, cpu: serversCPU(b, servers) - cpu0, wall: time.Since(start), prod: prod,
		pacing: serverPacing(servers[0].logs.String())}
}

// serverPacing is the pacing a server's start line names (its
// sqlstream.gc.percent and sqlstream.memory.limit, GOGC and GOMEMLIMIT
// from this process's environment, or the defaults); a server without
// the line ran at Go's pacing, from the environment as inherited.
func serverPacing(logs string) string {
	m := regexp.MustCompile(`msg="garbage collector pacing" gc_percent=(\S+) gc_percent_from=("[^"]*"|\S+) memory_limit=(\S+) memory_limit_from=("[^"]*"|\S+)`).FindStringSubmatch(logs)
	if m == nil {
		return fmt.Sprintf("Go's (GOGC=%q GOMEMLIMIT=%q)", os.Getenv("GOGC"), os.Getenv("GOMEMLIMIT"))
	}
	return fmt.Sprintf("gc %s (%s), limit %s (%s)", m[1], strings.Trim(m[2], `"`), m[3], strings.Trim(m[4], `"`))
}

func serversCPU(b *testing.B, servers []*serverProc) time.Duration {
	var total time.Duration
	for _, s := range servers {
		total += s.cpu(b)
	}
	return total
}

// waitMembers waits until the service's query group is stable with n
// members, each holding partitions, and returns the group.
func waitMembers(b *testing.B, adm *kadm.Client, service string, n int) string {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		groups, err := adm.ListGroups(context.Background())
		if err == nil {
			for _, g := range groups.Groups() {
				if !strings.HasPrefix(g, service+"query_") {
					continue
				}
				d, err := adm.DescribeGroups(context.Background(), g)
				if err != nil {
					continue
				}
				held := 0
				for _, m := range d[g].Members {
					if a, ok := m.Assigned.AsConsumer(); ok && len(a.Topics) > 0 && len(a.Topics[0].Partitions) > 0 {
						held++
					}
				}
				if d[g].State == "Stable" && held == n {
					return g
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatalf("the query group of %s never had %d members holding tasks", service, n)
	return ""
}

// produceEvents writes numEvents page views over numKeys users.
func produceEvents(b *testing.B, cl *kgo.Client, topic string) {
	ctx := context.Background()
	var first error
	var mu sync.Mutex
	for i := 0; i < numEvents; i++ {
		user := "user_" + strconv.Itoa(i%numKeys)
		v := `{"PAGE":"/product/` + strconv.Itoa(i%997) + `"}`
		cl.Produce(ctx, &kgo.Record{Topic: topic, Key: []byte(user), Value: []byte(v)}, func(_ *kgo.Record, err error) {
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if first != nil {
		b.Fatal(first)
	}
}

// waitCommitted waits until group committed n records of topic.
func waitCommitted(b *testing.B, adm *kadm.Client, group, topic string, n int64) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		offs, err := adm.FetchOffsets(context.Background(), group)
		if err == nil {
			var total int64
			offs.Each(func(o kadm.OffsetResponse) {
				if o.Topic == topic {
					total += o.At
				}
			})
			if total >= n {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatalf("group %s did not commit %d records of %s", group, n, topic)
}

// BenchmarkScaleOutGroupBy is issue 12's scaling benchmark: CTAS …
// COUNT(*) GROUP BY over 1M events on 1, 2 and 3 `sqlstream server`
// processes of one service id on one broker (embedded in the benchmark
// process, so its CPU is not in the figures): events per CPU-second of
// the server processes together, and wall time from the first event
// produced to the last one committed (the producer runs meanwhile, in
// the benchmark process; on a machine with fewer cores than processes the
// wall time cannot shrink). Run with -benchtime 1x.
func BenchmarkScaleOutGroupBy(b *testing.B) {
	bin := buildServer(b, b.TempDir())
	br, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(br.Addrs()...), kgo.ProducerBatchMaxBytes(1<<20),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fmt.Printf("\nCTAS … COUNT(*) GROUP BY over %d events (%d partitions, %d keys), one broker:\n", numEvents, scalePartitions, numKeys)
		for procs := 1; procs <= 3; procs++ {
			r := runScale(b, bin, br, adm, cl, procs)
			perCPU := float64(numEvents) / r.cpu.Seconds()
			b.ReportMetric(perCPU, fmt.Sprintf("events/cpu-s-%dproc", procs))
			b.ReportMetric(r.wall.Seconds(), fmt.Sprintf("wall-s-%dproc", procs))
			fmt.Printf("  %d process(es): %9.0f events/CPU-s  (cpu %v, wall %v of which producing %v, %.0f events/s; GC %s)\n", procs, perCPU,
				r.cpu.Round(time.Millisecond), r.wall.Round(time.Millisecond), r.prod.Round(time.Millisecond), float64(numEvents)/r.wall.Seconds(), r.pacing)
		}
	}
}
