package repl

import (
	"bufio"
	"errors"
	"io"
	"os"

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
	in io.Closer
}

func newPipeReader(in io.ReadCloser) *pipeReader {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	return &pipeReader{sc: sc, in: in}
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
	rl *readline.Instance
}

func newTTYReader(cfg *Config, complete readline.AutoCompleter) (*ttyReader, error) {
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 prompt,
		HistoryFile:            cfg.HistoryFile,
		DisableAutoSaveHistory: true,
		AutoComplete:           complete,
		Stdin:                  cfg.Stdin,
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

func (t *ttyReader) AddHistory(stmt string) { _ = t.rl.SaveHistory(stmt) }

func (t *ttyReader) Close() error { return t.rl.Close() }
