package cli

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeServices records the lifecycle calls it gets. Its stack checks on
// Shutdown that the broker is still up, proving the shutdown order.
type fakeServices struct {
	t        *testing.T
	startErr error
	repl     func(context.Context, REPLConfig) error

	mu        sync.Mutex
	events    []string
	bootstrap []string
}

func (f *fakeServices) record(e string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
}

func (f *fakeServices) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.events, " ")
}

func (f *fakeServices) StartStack(_ context.Context, s Settings, bootstrap []string, _ *slog.Logger) (Stack, error) {
	f.record("start-stack")
	f.bootstrap = bootstrap
	if f.startErr != nil {
		return nil, f.startErr
	}
	return &fakeStack{f: f, addr: s.Listen}, nil
}

func (f *fakeServices) RunREPL(ctx context.Context, c REPLConfig) error {
	f.record("repl")
	if f.repl == nil {
		return nil
	}
	return f.repl(ctx, c)
}

type fakeStack struct {
	f    *fakeServices
	addr string
}

func (s *fakeStack) Addr() string { return s.addr }

func (s *fakeStack) Shutdown(context.Context) error {
	state := "broker-down"
	if len(s.f.bootstrap) > 0 && reachable(s.f.bootstrap[0]) {
		state = "broker-up"
	}
	s.f.record("shutdown-stack(" + state + ")")
	return nil
}

func reachable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func testSettings(t *testing.T) Settings {
	return Settings{
		Listen:       "0.0.0.0:8088",
		BrokerListen: "127.0.0.1:0",
		DataDir:      t.TempDir(),
		ServiceID:    "default_",
		LogLevel:     slog.LevelInfo,
	}
}

func TestServerShutsDownStackThenBroker(t *testing.T) {
	f := &fakeServices{t: t}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var stderr syncBuffer
	go func() { done <- runServer(ctx, testSettings(t), f, Stdio{Err: &stderr}) }()
	waitFor(t, func() bool { return strings.Contains(stderr.String(), "sqlstream ready") })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("runServer: %v", err)
	}
	if got := f.log(); got != "start-stack shutdown-stack(broker-up)" {
		t.Fatalf("lifecycle %q", got)
	}
	if reachable(f.bootstrap[0]) {
		t.Fatalf("broker %s still listening after shutdown", f.bootstrap[0])
	}
	if !strings.Contains(stderr.String(), "url=http://127.0.0.1:8088") {
		t.Fatalf("ready line does not name a connectable URL:\n%s", stderr.String())
	}
}

func TestCombinedRunsREPLThenShutsDown(t *testing.T) {
	s := testSettings(t)
	f := &fakeServices{t: t, repl: func(_ context.Context, c REPLConfig) error {
		if c.ServerURL != "http://127.0.0.1:8088" || c.HistoryFile != s.HistoryFile() {
			return errors.New("unexpected REPL config")
		}
		return nil
	}}
	var stderr syncBuffer
	if err := runCombined(context.Background(), s, f, Stdio{Err: &stderr}); err != nil {
		t.Fatalf("runCombined: %v", err)
	}
	if got := f.log(); got != "start-stack repl shutdown-stack(broker-up)" {
		t.Fatalf("lifecycle %q", got)
	}
	logs, err := os.ReadFile(s.LogFile())
	if err != nil || !strings.Contains(string(logs), "embedded kafka broker started") {
		t.Fatalf("log file %s: %v\n%s", s.LogFile(), err, logs)
	}
	if strings.Contains(stderr.String(), "level=") {
		t.Fatalf("combined mode logged to stderr:\n%s", stderr.String())
	}
}

func TestFailedStartClosesBroker(t *testing.T) {
	f := &fakeServices{t: t, startErr: errors.New("boom")}
	err := runServer(context.Background(), testSettings(t), f, Stdio{Err: &syncBuffer{}})
	if err == nil || !strings.Contains(err.Error(), "starting engine: boom") {
		t.Fatalf("runServer error %v, want starting engine: boom", err)
	}
	if reachable(f.bootstrap[0]) {
		t.Fatalf("broker %s still listening after failed start", f.bootstrap[0])
	}
}

func TestExternalKafkaRunsNoBroker(t *testing.T) {
	s := testSettings(t)
	s.Bootstrap = []string{"kafka.invalid:9092"}
	f := &fakeServices{t: t}
	if err := runCombined(context.Background(), s, f, Stdio{Err: &syncBuffer{}}); err != nil {
		t.Fatalf("runCombined: %v", err)
	}
	if strings.Join(f.bootstrap, ",") != "kafka.invalid:9092" {
		t.Fatalf("stack got bootstrap %v", f.bootstrap)
	}
	if _, err := os.Stat(s.BrokerDir()); !os.IsNotExist(err) {
		t.Fatalf("broker dir created with external Kafka: %v", err)
	}
}

func TestSignals(t *testing.T) {
	ctx, stop := signalContext(true)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("SIGINT ended the interactive context; the REPL owns Ctrl-C")
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ctx.Err() != nil })
	stop()

	ctx, stop = signalContext(false)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ctx.Err() != nil })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestDataDirIsExclusive(t *testing.T) {
	s := testSettings(t)
	release := make(chan struct{})
	f := &fakeServices{t: t, repl: func(context.Context, REPLConfig) error {
		<-release
		return nil
	}}
	done := make(chan error, 1)
	go func() { done <- runCombined(context.Background(), s, f, Stdio{Err: &syncBuffer{}}) }()
	waitFor(t, func() bool { return strings.Contains(f.log(), "repl") })

	second := testSettings(t)
	second.DataDir = s.DataDir
	err := runServer(context.Background(), second, &fakeServices{t: t}, Stdio{Err: &syncBuffer{}})
	if err == nil || !strings.Contains(err.Error(), "in use by another sqlstream process") {
		t.Fatalf("second process on the same data dir: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first process: %v", err)
	}
	l, err := lockDataDir(s.DataDir)
	if err != nil {
		t.Fatalf("lock not released after shutdown: %v", err)
	}
	_ = l.release()
}

// TestSignalStopsCombinedModeWhileREPLWaits: a REPL blocked on input does
// not keep the process alive after SIGTERM.
func TestSignalStopsCombinedModeWhileREPLWaits(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	f := &fakeServices{t: t, repl: func(context.Context, REPLConfig) error {
		<-block
		return nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runCombined(ctx, testSettings(t), f, Stdio{Err: &syncBuffer{}}) }()
	waitFor(t, func() bool { return strings.Contains(f.log(), "repl") })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("runCombined: %v", err)
		}
	case <-time.After(replGrace + 10*time.Second):
		t.Fatal("runCombined did not return after its context ended")
	}
	if got := f.log(); got != "start-stack repl shutdown-stack(broker-up)" {
		t.Fatalf("lifecycle %q", got)
	}
}

// TestProtectedPrefixesFollowPersistentPrefix: under BASIC auth the
// broker keeps other clients off the topics and groups of queries named
// with a configured ksql.persistent.prefix too, and still off those of
// the default prefix and ksqlDB's naming.
func TestProtectedPrefixesFollowPersistentPrefix(t *testing.T) {
	for _, c := range []struct {
		props map[string]string
		want  string
	}{
		{nil, "[svc_query_ svc_transient_ svc_SCALABLE_PUSH_QUERY_ _confluent-ksql-svc_]"},
		{map[string]string{"ksql.persistent.prefix": "pq_"}, "[svc_query_ svc_transient_ svc_SCALABLE_PUSH_QUERY_ _confluent-ksql-svc_ svc_pq_]"},
	} {
		got := protectedPrefixes(Settings{ServiceID: "svc_", Properties: c.props})
		if s := "[" + strings.Join(got, " ") + "]"; s != c.want {
			t.Errorf("%v: protected prefixes %s, want %s", c.props, s, c.want)
		}
	}
}
