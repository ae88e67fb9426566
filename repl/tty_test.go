package repl

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestTerminalSession drives Run on a pseudo terminal: banner, prompt,
// continuation prompt, tab completion, Ctrl-C at the prompt, exit.
func TestTerminalSession(t *testing.T) {
	f := newFakeServer()
	srv := httptest.NewServer(f)
	defer srv.Close()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	term := newTermReader(ptmx)
	done := make(chan error, 1)
	go func() {
		done <- Run(t.Context(), Config{ServerURL: srv.URL, Stdin: tty, Stdout: tty, Stderr: tty,
			HistoryFile: t.TempDir() + "/history"})
	}()
	term.expect(t, "Server Status: RUNNING")
	term.expect(t, "ksql> ")
	type_("SHOW\r", ptmx, t)
	term.expect(t, "    > ")
	type_("STREAMS;\r", ptmx, t)
	term.expect(t, " PAGEVIEWS ")
	term.expect(t, "ksql> ")
	type_("show variab\t", ptmx, t) // completes the keyword in the user's case
	term.expect(t, "show variables ")
	type_(";\r", ptmx, t)
	term.expect(t, " Variable Name ")
	type_("SELECT oops\x03", ptmx, t) // Ctrl-C drops the line
	term.expect(t, "^C")
	type_("exit\r", ptmx, t)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Run did not return after exit; output:\n%s", term.all())
	}
	for _, req := range f.takeLog() {
		if strings.Contains(req, "oops") {
			t.Fatalf("the interrupted line was sent: %s", req)
		}
	}
}

func type_(s string, w io.Writer, t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatal(err)
	}
}

// termReader collects terminal output in the background.
type termReader struct {
	mu   sync.Mutex
	buf  strings.Builder
	seen int // output before this offset was matched already
}

func newTermReader(r io.Reader) *termReader {
	tr := &termReader{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			tr.mu.Lock()
			tr.buf.Write(b[:n])
			tr.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return tr
}

func (tr *termReader) all() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.buf.String()
}

// expect waits until want appears in output not matched before.
func (tr *termReader) expect(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		tr.mu.Lock()
		out := tr.buf.String()
		if i := strings.Index(out[tr.seen:], want); i >= 0 {
			tr.seen += i + len(want)
			tr.mu.Unlock()
			return
		}
		tr.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("terminal never showed %q; output:\n%s", want, tr.all())
}

// TestTerminalSessionEndsWithContext: when ctx ends while Run waits for a
// line (a SIGTERM in combined mode), Run closes the line editor, returns
// nil and leaves the terminal out of raw mode, echoing again.
func TestTerminalSessionEndsWithContext(t *testing.T) {
	srv := httptest.NewServer(newFakeServer())
	defer srv.Close()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Skipf("no termios: %v", err)
	}
	term := newTermReader(ptmx)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{ServerURL: srv.URL, Stdin: tty, Stdout: tty, Stderr: tty})
	}()
	term.expect(t, "ksql> ")
	raw, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if raw.Lflag&unix.ECHO != 0 {
		t.Fatalf("the terminal is not in raw mode at the prompt (lflag %#x)", raw.Lflag)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v after ctx ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("Run still waits for a line after ctx ended; output:\n%s", term.all())
	}
	after, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	if after.Lflag != before.Lflag {
		t.Fatalf("terminal mode not restored: lflag %#x, was %#x", after.Lflag, before.Lflag)
	}
}
