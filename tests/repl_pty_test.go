package tests

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestCombinedModeOnATerminal runs `sqlstream` (server + REPL) on a pseudo
// terminal: a statement runs, SIGINT does not kill the process (Ctrl-C
// belongs to the REPL), and `exit` shuts everything down with exit code 0.
func TestCombinedModeOnATerminal(t *testing.T) {
	cmd, term, exited := startOnTerminal(t)
	term.expect(t, "ksql> ")
	term.send(t, "SHOW STREAMS;\r")
	term.expect(t, "KSQL_PROCESSING_LOG")
	term.expect(t, "ksql> ")

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Fatalf("SIGINT ended the combined process (%v); output:\n%s", err, term.all())
	case <-time.After(500 * time.Millisecond):
	}
	term.send(t, "exit\r")
	waitExit(t, exited, term)
}

// TestCombinedModeStopsOnSIGTERM: SIGTERM ends the REPL and shuts the
// server, engine and broker down with exit code 0.
func TestCombinedModeStopsOnSIGTERM(t *testing.T) {
	cmd, term, exited := startOnTerminal(t)
	term.expect(t, "ksql> ")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, exited, term)
}

func startOnTerminal(t *testing.T) (*exec.Cmd, *terminal, <-chan error) {
	t.Helper()
	cmd := exec.Command(binary(t), "--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0",
		"--schema-registry-listen", "127.0.0.1:0", "--data-dir", t.TempDir())
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Skipf("no pseudo terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, newTerminal(ptmx), exited
}

func waitExit(t *testing.T, exited <-chan error, term *terminal) {
	t.Helper()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit status %v; output:\n%s", err, term.all())
		}
	case <-time.After(stopTimeout):
		t.Fatalf("sqlstream did not exit; output:\n%s", term.all())
	}
}

// terminal collects a pseudo terminal's output in the background.
type terminal struct {
	w    io.Writer
	mu   sync.Mutex
	buf  strings.Builder
	seen int // output before this offset was matched already
}

func newTerminal(f *os.File) *terminal {
	tm := &terminal{w: f}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			tm.mu.Lock()
			tm.buf.Write(b[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return tm
}

// expect waits for s to appear after what earlier expects matched.
func (tm *terminal) expect(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		tm.mu.Lock()
		out := tm.buf.String()
		i := strings.Index(out[tm.seen:], s)
		if i >= 0 {
			tm.seen += i + len(s)
		}
		tm.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("terminal never showed %q; output:\n%s", s, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (tm *terminal) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(tm.w, s); err != nil {
		t.Fatal(err)
	}
}

func (tm *terminal) all() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.buf.String()
}
