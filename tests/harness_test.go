package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startTimeout bounds how long a node may take to become healthy, and
// stopTimeout how long it may take to exit after SIGTERM.
const (
	startTimeout = 60 * time.Second
	stopTimeout  = 45 * time.Second
)

// binaryCache builds the sqlstream binary once per test run.
type binaryCache struct {
	once sync.Once
	dir  string
	path string
	err  error
	// out is what `make build` printed while building it.
	out string
}

// sqlstreamBinary is shared by every test of the package: building the
// binary is the slowest step, so it happens at most once per run.
var sqlstreamBinary binaryCache

func TestMain(m *testing.M) {
	code := m.Run()
	if sqlstreamBinary.dir != "" {
		os.RemoveAll(sqlstreamBinary.dir)
	}
	os.Exit(code)
}

// binary returns the path of a freshly built sqlstream binary.
func binary(t *testing.T) string {
	t.Helper()
	c := &sqlstreamBinary
	c.once.Do(func() {
		if c.dir, c.err = os.MkdirTemp("", "sqlstream-e2e-"); c.err != nil {
			return
		}
		c.path = filepath.Join(c.dir, "sqlstream")
		// Built as users build it (make build: static, version stamped,
		// progress shown), so TestMakeBuildShowsProgress reads its output.
		cmd := exec.Command("make", "--no-print-directory", "build", "BIN="+c.path)
		cmd.Dir = repoRoot(t)
		out, err := cmd.CombinedOutput()
		c.out = string(out)
		if err != nil {
			c.err = fmt.Errorf("make build: %v\n%s", err, out)
		}
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.path
}

// runBinary runs a short-lived sqlstream command and returns its exit
// code, stdout and stderr.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runBinaryInput(t, "", args...)
}

// runBinaryInput is runBinary with stdin.
func runBinaryInput(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	bin := binary(t)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("sqlstream %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// node is a `sqlstream server` process with its embedded broker, or a
// `sqlstream broker` process, on free ports and a data directory that
// survives restarts.
type node struct {
	t       *testing.T
	dataDir string
	args    []string
	// env is added to the test's environment for the process
	// (NAME=value); nil inherits it as it is.
	env []string

	cmd    *exec.Cmd
	logs   *lockedBuffer
	exited chan error

	URL   string // http://host:port of the HTTP API
	Kafka string // host:port of the broker
}

// startNode starts `sqlstream server` with a temp data dir, free HTTP and
// broker ports and extra flags, and waits until /healthcheck answers.
func startNode(t *testing.T, extra ...string) *node {
	t.Helper()
	dataDir := t.TempDir()
	return startNodeArgs(t, dataDir, append([]string{"--listen", "127.0.0.1:0",
		"--broker-listen", "127.0.0.1:0", "--schema-registry-listen", "127.0.0.1:0",
		"--data-dir", dataDir, "--log-level", "debug"}, extra...)...)
}

// startNodeExternalRegistry is startNode for a server configured (in
// extra, e.g. a --config file) with an external ksql.schema.registry.url:
// the embedded registry does not run, and naming its listener would be
// an error.
func startNodeExternalRegistry(t *testing.T, extra ...string) *node {
	t.Helper()
	dataDir := t.TempDir()
	return startNodeArgs(t, dataDir, append([]string{"--listen", "127.0.0.1:0",
		"--broker-listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-level", "debug"}, extra...)...)
}

// startNodeArgs starts `sqlstream server` with exactly args (dataDir is
// the --data-dir they name) and waits until it is healthy.
func startNodeArgs(t *testing.T, dataDir string, args ...string) *node {
	t.Helper()
	n := &node{t: t, dataDir: dataDir, args: append([]string{"server"}, args...)}
	n.start()
	t.Cleanup(n.kill)
	return n
}

// startBrokerProcess starts `sqlstream broker` with a temp data dir on a
// free port and extra flags, and waits for its ready line. Restarts keep
// the port, so servers started with --bootstrap-servers n.Kafka find it
// again.
func startBrokerProcess(t *testing.T, extra ...string) *node {
	t.Helper()
	dataDir := t.TempDir()
	n := &node{t: t, dataDir: dataDir, args: append([]string{"broker", "--broker-listen", "127.0.0.1:0",
		"--data-dir", dataDir, "--log-level", "debug"}, extra...)}
	n.start()
	t.Cleanup(n.kill)
	n.args[2] = n.Kafka
	return n
}

// startServerOn starts `sqlstream server` on external brokers (such as a
// startBrokerProcess node's Kafka), with a temp data dir, a free HTTP port
// and extra flags.
func startServerOn(t *testing.T, kafka string, extra ...string) *node {
	t.Helper()
	dataDir := t.TempDir()
	n := startNodeArgs(t, dataDir, append([]string{"--listen", "127.0.0.1:0",
		"--bootstrap-servers", kafka, "--data-dir", dataDir, "--log-level", "debug"}, extra...)...)
	n.Kafka = kafka
	return n
}

// isBroker reports whether n runs `sqlstream broker`.
func (n *node) isBroker() bool { return n.args[0] == "broker" }

func (n *node) start() {
	n.t.Helper()
	n.logs = &lockedBuffer{}
	n.exited = make(chan error, 1)
	n.cmd = exec.Command(binary(n.t), n.args...)
	if n.env != nil {
		n.cmd.Env = append(os.Environ(), n.env...)
	}
	n.cmd.Stdout, n.cmd.Stderr = n.logs, n.logs
	if err := n.cmd.Start(); err != nil {
		n.t.Fatalf("start sqlstream: %v", err)
	}
	go func(cmd *exec.Cmd, exited chan<- error) { exited <- cmd.Wait() }(n.cmd, n.exited)
	n.waitReady()
	if !n.isBroker() {
		n.waitHealthy()
	}
}

// readyLine is what `sqlstream server` logs once it serves.
func readyLine() *regexp.Regexp {
	return regexp.MustCompile(`msg="sqlstream ready" url=(\S+) kafka=(\S+)`)
}

// brokerReadyLine is what `sqlstream broker` logs once it serves.
func brokerReadyLine() *regexp.Regexp {
	return regexp.MustCompile(`msg="sqlstream broker ready" kafka=(\S+)`)
}

func (n *node) waitReady() {
	n.t.Helper()
	deadline := time.After(startTimeout)
	for {
		if n.isBroker() {
			if m := brokerReadyLine().FindStringSubmatch(n.logs.String()); m != nil {
				n.Kafka = m[1]
				return
			}
		} else if m := readyLine().FindStringSubmatch(n.logs.String()); m != nil {
			n.URL, n.Kafka = m[1], m[2]
			return
		}
		select {
		case err := <-n.exited:
			n.t.Fatalf("sqlstream exited before ready (%v):\n%s", err, n.logs.String())
		case <-deadline:
			n.t.Fatalf("sqlstream not ready after %v:\n%s", startTimeout, n.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (n *node) waitHealthy() {
	n.t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		resp, err := http.Get(n.URL + "/healthcheck")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("/healthcheck not OK after %v (last: %v):\n%s", startTimeout, err, n.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and requires a clean exit within stopTimeout.
func (n *node) stop() {
	n.t.Helper()
	n.stopWith(syscall.SIGTERM)
}

// stopWith sends sig and requires a clean exit within stopTimeout.
func (n *node) stopWith(sig os.Signal) {
	n.t.Helper()
	if err := n.cmd.Process.Signal(sig); err != nil {
		n.t.Fatalf("%v: %v", sig, err)
	}
	select {
	case err := <-n.exited:
		if err != nil {
			n.t.Fatalf("sqlstream exited with %v after %v:\n%s", err, sig, n.logs.String())
		}
	case <-time.After(stopTimeout):
		n.kill()
		n.t.Fatalf("sqlstream did not exit within %v of %v:\n%s", stopTimeout, sig, n.logs.String())
	}
	n.cmd = nil
}

// restart stops the node and starts it again on the same data directory;
// ports may change, URL and Kafka are updated.
func (n *node) restart() {
	n.t.Helper()
	n.stop()
	n.start()
}

// kill ends a node a failed test left running.
func (n *node) kill() {
	if n.cmd != nil && n.cmd.ProcessState == nil {
		_ = n.cmd.Process.Kill()
		select {
		case <-n.exited:
		case <-time.After(5 * time.Second):
		}
	}
	n.cmd = nil
}

// Logs returns everything the node printed so far.
func (n *node) Logs() string { return n.logs.String() }

// ksql POSTs statements to /ksql and decodes the JSON answer.
func (n *node) ksql(sql string, props map[string]any) (int, any) {
	n.t.Helper()
	body := map[string]any{"ksql": sql, "streamsProperties": props}
	status, raw := n.post("/ksql", "application/vnd.ksql.v1+json", body)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		n.t.Fatalf("/ksql %q answered %d with non-JSON %q", sql, status, raw)
	}
	return status, v
}

// mustKsql runs statements that must succeed.
func (n *node) mustKsql(sql string) any {
	n.t.Helper()
	status, v := n.ksql(sql, nil)
	if status != http.StatusOK {
		n.t.Fatalf("/ksql %q: status %d: %v", sql, status, v)
	}
	return v
}

func (n *node) post(path, accept string, body any) (int, []byte) {
	n.t.Helper()
	req := n.newRequest(context.Background(), path, accept, body)
	resp, err := httpClient().Do(req)
	if err != nil {
		n.t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		n.t.Fatalf("POST %s: reading body: %v", path, err)
	}
	return resp.StatusCode, raw
}

func (n *node) newRequest(ctx context.Context, path, accept string, body any) *http.Request {
	n.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		n.t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.URL+path, bytes.NewReader(b))
	if err != nil {
		n.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	return req
}

func httpClient() *http.Client { return &http.Client{Timeout: clientTimeout} }

// streamResult is a /query-stream answer: the header object and rows.
type streamResult struct {
	Header map[string]any
	Rows   [][]any
}

// queryStream POSTs a query to /query-stream (delimited format) and reads
// until the header and n rows arrived (or the stream ended), then closes
// the request.
func (n *node) queryStream(sql string, props map[string]any, n2 int) streamResult {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	body := map[string]any{"sql": sql, "properties": props}
	resp, err := http.DefaultClient.Do(n.newRequest(ctx, "/query-stream", "application/vnd.ksqlapi.delimited.v1", body))
	if err != nil {
		n.t.Fatalf("/query-stream %q: %v", sql, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		raw, _ := io.ReadAll(resp.Body)
		n.t.Fatalf("/query-stream %q: status %d: %s", sql, resp.StatusCode, raw)
	}
	return readStream(n.t, resp.Body, n2)
}

func readStream(t *testing.T, r io.Reader, n int) streamResult {
	t.Helper()
	var res streamResult
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for (res.Header == nil || len(res.Rows) < n) && sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if res.Header == nil {
			if err := json.Unmarshal(line, &res.Header); err != nil {
				t.Fatalf("/query-stream header %q: %v", line, err)
			}
			continue
		}
		var row []any
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatalf("/query-stream row %q: %v", line, err)
		}
		res.Rows = append(res.Rows, row)
	}
	if len(res.Rows) < n {
		t.Fatalf("/query-stream ended after %d of %d rows (%v)", len(res.Rows), n, sc.Err())
	}
	return res
}

// lockedBuffer collects a process's output while tests read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
