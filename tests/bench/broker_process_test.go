package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sqlstream/sqlstream/broker"
)

// brokerChildEnv, set in a test binary's environment, makes it a broker
// process instead of running benchmarks (TestMain): BenchmarkFormats
// counts the engine's CPU apart from the broker's, as make nexmark does.
const brokerChildEnv = "SQLSTREAM_BENCH_BROKER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(brokerChildEnv) != "" {
		os.Exit(runBrokerChild(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// runBrokerChild starts an embedded broker on a loopback port, prints its
// addresses on one line and serves until stdin closes (the parent closed
// it or died).
func runBrokerChild(stdin io.Reader, stdout io.Writer) int {
	br, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench broker child:", err)
		return 1
	}
	defer br.Close()
	fmt.Fprintln(stdout, strings.Join(br.Addrs(), ","))
	_, _ = io.Copy(io.Discard, stdin)
	return 0
}

// brokerProcess is a broker in a child process (this test binary, run
// with brokerChildEnv), so its CPU can be read apart from the engine's.
type brokerProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addrs []string
}

func startBrokerProcess(b *testing.B) *brokerProcess {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), brokerChildEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		b.Fatalf("broker child printed no address: %v", err)
	}
	return &brokerProcess{cmd: cmd, stdin: stdin, addrs: strings.Split(strings.TrimSpace(line), ",")}
}

func (p *brokerProcess) Addrs() []string { return p.addrs }

// Close ends the child (stdin closed) and waits for it.
func (p *brokerProcess) Close() error {
	_ = p.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		return <-done
	}
}

// cpu is the child's CPU time so far.
func (p *brokerProcess) cpu(b *testing.B) time.Duration { return processCPU(b, p.cmd.Process.Pid) }

// setupBrokerProcess is setupBroker with the broker in a child process.
func setupBrokerProcess(b *testing.B) (*env, *brokerProcess) {
	p := startBrokerProcess(b)
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addrs()...), kgo.ProducerBatchMaxBytes(1<<20),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	if err != nil {
		b.Fatal(err)
	}
	e := &env{b: p, adm: kadm.NewClient(cl), cl: cl}
	if _, err := e.adm.CreateTopic(context.Background(), partitions, 1, nil, inputTopic); err != nil {
		b.Fatal(err)
	}
	return e, p
}
