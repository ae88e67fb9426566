package repl

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/chzyer/readline"
)

// errInterrupted is returned by a lineReader when the user pressed Ctrl-C
// at the prompt.
var errInterrupted = errors.New("interrupted")

// lineReader reads one line of input after showing prompt. It returns
// io.EOF at the end of input (Ctrl-D) and errInterrupted for Ctrl-C.
type lineReader interface {
	ReadLine(prompt string) (string, error)
	// AddHistory records a complete statement.
	AddHistory(stmt string)
	Close() error
}

// isTerminal reports whether r is a terminal.
func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// pipeReader reads lines from a non-terminal input, without prompts.
type pipeReader struct {
	sc *bufio.Scanner
}

func newPipeReader(in io.Reader) *pipeReader {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	return &pipeReader{sc: sc}
}

func (p *pipeReader) ReadLine(string) (string, error) {
	if p.sc.Scan() {
		return p.sc.Text(), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}

func (p *pipeReader) AddHistory(string) {}

func (p *pipeReader) Close() error { return nil }

// ttyReader edits lines with readline: history, completion, Ctrl-C.
type ttyReader struct {
	rl      *readline.Instance
	aborted atomic.Bool
}

func newTTYReader(cfg *Config, complete readline.AutoCompleter) (*ttyReader, error) {
	tty := &rawMode{fd: int(cfg.Stdin.(*os.File).Fd())} // isTerminal checked it is a file
	rl, err := readline.NewEx(&readline.Config{
		FuncIsTerminal:         func() bool { return true },
		FuncMakeRaw:            tty.enter,
		FuncExitRaw:            tty.exit,
		FuncGetWidth:           func() int { return outputWidth(cfg) },
		Prompt:                 prompt,
		HistoryFile:            cfg.HistoryFile,
		DisableAutoSaveHistory: true,
		AutoComplete:           complete,
		Stdin:                  asReadCloser(cfg.Stdin),
		Stdout:                 cfg.Stdout,
		Stderr:                 cfg.Stderr,
		InterruptPrompt:        "^C",
		EOFPrompt:              "exit",
	})
	if err != nil {
		return nil, err
	}
	return &ttyReader{rl: rl}, nil
}

func (t *ttyReader) ReadLine(p string) (string, error) {
	t.rl.SetPrompt(p)
	line, err := t.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return "", errInterrupted
	}
	return line, err
}

// AddHistory saves a statement as one history entry (the history file is
// line based, so line breaks become spaces).
func (t *ttyReader) AddHistory(stmt string) {
	_ = t.rl.SaveHistory(strings.ReplaceAll(stmt, "\n", " "))
}

// abort makes a waiting ReadLine return io.EOF, which takes the terminal
// out of raw mode. It does not wait for readline's reader goroutine: that
// is blocked in a read of the terminal that only input or the process's
// end can finish, so Close skips it after an abort.
func (t *ttyReader) abort() {
	t.aborted.Store(true)
	t.rl.Operation.Close()
}

func (t *ttyReader) Close() error {
	if t.aborted.Load() {
		return nil
	}
	return t.rl.Close()
}

func asReadCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// rawMode switches the REPL's own terminal (not necessarily os.Stdin) in
// and out of raw mode for line editing.
type rawMode struct {
	fd    int
	state *readline.State
}

func (r *rawMode) enter() error {
	st, err := readline.MakeRaw(r.fd)
	if err != nil {
		return err
	}
	r.state = st
	return nil
}

func (r *rawMode) exit() error {
	if r.state == nil {
		return nil
	}
	return readline.Restore(r.fd, r.state)
}
