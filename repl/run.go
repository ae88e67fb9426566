package repl

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/chzyer/readline"
	"github.com/sqlstream/sqlstream/sql/script"
)

// Prompts: the first line of a statement, and its continuation lines.
const (
	prompt             = "ksql> "
	continuationPrompt = "    > "
)

// Run reads statements from cfg.Stdin until EOF (Ctrl-D), EXIT or QUIT and
// runs each against the server at cfg.ServerURL, printing results as the
// ksql CLI does. It returns nil at the end of input or when ctx ends: on a
// terminal, the end of ctx closes the line editor at once (restoring the
// terminal's mode) rather than waiting for the next line.
func Run(ctx context.Context, cfg Config) error {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	s := newSession(&cfg)
	reader, err := s.newReader(ctx, &cfg)
	if err != nil {
		return err
	}
	if tty, ok := reader.(*ttyReader); ok {
		stop := context.AfterFunc(ctx, tty.abort)
		defer stop()
	}
	defer reader.Close()
	if s.interactive && s.interrupt == nil {
		// Ctrl-C outside a query must not kill the shell.
		interrupt, stop := notifyInterrupts()
		defer stop()
		s.interrupt = interrupt
	}
	defer s.stopSpool()
	return s.loop(ctx, reader)
}

func newSession(cfg *Config) *session {
	interactive := isTerminal(cfg.Stdin)
	return &session{
		client: newClient(cfg),
		con: &console{out: cfg.Stdout, errOut: cfg.Stderr, width: outputWidth(cfg), wrap: true,
			clipTables: cfg.Width > 0 || isTerminal(cfg.Stdout)},
		interactive: interactive,
		interrupt:   cfg.Interrupt,
		version:     cfg.Version,
		props:       map[string]string{},
		vars:        map[string]string{},
	}
}

func outputWidth(cfg *Config) int {
	if cfg.Width > 0 {
		return cfg.Width
	}
	if f, ok := cfg.Stdout.(*os.File); ok && isTerminal(f) {
		if w, _, err := readline.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 80
}

// newReader picks line editing for a terminal (with a banner and name
// completion) or plain line reading for piped input.
func (s *session) newReader(ctx context.Context, cfg *Config) (lineReader, error) {
	if !s.interactive {
		return newPipeReader(cfg.Stdin), nil
	}
	s.printBanner(ctx)
	s.names = newCompleter()
	s.names.refresh(ctx, s.client)
	return newTTYReader(cfg, s.names)
}

func (s *session) printBanner(ctx context.Context) {
	info, err := s.client.info(ctx)
	if err != nil {
		s.con.printError(err.Error())
		return
	}
	s.con.printf("sqlstream CLI, server v%s located at %s\nServer Status: %s\n\n",
		info.Version, s.client.base, info.ServerStatus)
	s.con.println("Type EXIT or press Ctrl-D to leave.")
	s.con.println()
}

// loop reads lines into a statement buffer and runs every statement that
// is complete (ends with ';' outside quotes and comments).
func (s *session) loop(ctx context.Context, reader lineReader) error {
	var buf strings.Builder
	for ctx.Err() == nil {
		p := prompt
		if buf.Len() > 0 {
			p = continuationPrompt
		}
		line, err := reader.ReadLine(p)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil // the editor was closed because ctx ended
		case errors.Is(err, errInterrupted):
			buf.Reset()
			continue
		case errors.Is(err, io.EOF):
			s.runRest(ctx, buf.String())
			return nil
		case err != nil:
			return err
		}
		s.remember(line)
		if buf.Len() == 0 {
			if ok, err := s.cliCommand(ctx, line); ok {
				if errors.Is(err, errExitREPL) {
					return nil
				}
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		rest := s.runComplete(ctx, reader, buf.String())
		buf.Reset()
		buf.WriteString(rest)
	}
	return ctx.Err()
}

// runComplete runs the complete statements of text and returns the
// unfinished rest ("" when only blanks remain).
func (s *session) runComplete(ctx context.Context, reader lineReader, text string) string {
	stmts, rest := script.Split(text)
	if len(stmts) > 0 {
		reader.AddHistory(strings.TrimSpace(text[:len(text)-len(rest)]))
		s.handleStatements(ctx, stmts)
	}
	if script.IsBlank(rest) {
		return ""
	}
	return rest
}

// runRest runs an unterminated last statement at the end of input.
func (s *session) runRest(ctx context.Context, rest string) {
	if script.IsBlank(rest) {
		return
	}
	if ok, _ := s.cliCommand(ctx, rest); ok {
		return
	}
	s.handleStatements(ctx, []script.Statement{{Text: strings.TrimSpace(rest)}})
}

// remember records a line for HISTORY (blank lines are not kept) and, while
// SPOOL is on, copies it to the spool file after the prompt.
func (s *session) remember(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	s.history = append(s.history, line)
	s.con.spoolInput(prompt + line)
}
