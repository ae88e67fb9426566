package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/internal/gcpacing"
)

// runServer serves until ctx ends (SIGINT or SIGTERM), logging to stderr.
func runServer(ctx context.Context, s Settings, svc Services, stdio Stdio) error {
	log := newLogger(stdio.Err, s)
	applyPacing(s.Pacing, log)
	n, err := startNode(ctx, s, svc, log)
	if err != nil {
		return err
	}
	prof, err := startCPUProfile(s.CPUProfile)
	if err != nil {
		return errors.Join(err, n.shutdown())
	}
	log.Info("sqlstream ready", "url", n.serverURL(), "kafka", strings.Join(n.bootstrap, ","),
		"embedded_broker", s.Embedded(), "data_dir", s.DataDir, "schema_registry", registryURL(n.stack))
	<-ctx.Done()
	perr := prof.stop()
	log.Info("shutting down")
	return errors.Join(perr, n.shutdown())
}

// runCombined serves and runs the REPL in one process until the REPL ends
// or ctx ends (SIGTERM). Logs go to the log file so they don't garble the
// REPL.
func runCombined(ctx context.Context, s Settings, svc Services, stdio Stdio) error {
	f, err := openLogFile(s.LogFile())
	if err != nil {
		return err
	}
	defer f.Close()
	log := newLogger(f, s)
	applyPacing(s.Pacing, log)
	n, err := startNode(ctx, s, svc, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdio.Err, "sqlstream: HTTP API at %s, Kafka at %s, logs in %s\n",
		n.serverURL(), strings.Join(n.bootstrap, ","), s.LogFile())
	if u := registryURL(n.stack); u != "" {
		fmt.Fprintf(stdio.Err, "sqlstream: schema registry at %s\n", u)
	}
	repl := REPLConfig{ServerURL: n.serverURL(), HistoryFile: s.HistoryFile(), Stdio: stdio}
	rerr := runREPLUntil(ctx, svc, repl, log)
	log.Info("shutting down")
	return errors.Join(rerr, n.shutdown())
}

// replGrace is how long a REPL may take to notice that ctx ended (it may
// be waiting for a line of input) before the process stops without it.
const replGrace = 2 * time.Second

// runREPLUntil runs the REPL until it returns, or until ctx ends and the
// REPL does not return within replGrace: a signal must stop the process
// even while the REPL waits for input.
func runREPLUntil(ctx context.Context, svc Services, c REPLConfig, log *slog.Logger) error {
	done := make(chan error, 1)
	go func() { done <- svc.RunREPL(ctx, c) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(replGrace):
		log.Warn("REPL still waiting for input; stopping without it")
		return nil
	}
}

// applyPacing sets the garbage collector's pacing before anything starts
// and logs it, each value with where it came from.
func applyPacing(p gcpacing.Pacing, log *slog.Logger) {
	p.Apply()
	log.Info("garbage collector pacing", "gc_percent", p.PercentText(), "gc_percent_from", p.PercentFrom,
		"memory_limit", gcpacing.FormatBytes(p.Limit), "memory_limit_from", p.LimitFrom, "memory_limit_bytes", p.LimitText())
}

// applyDefaultPacing sets the pacing a server without the settings runs
// with, for `sqlstream test`, whose engines run in its process; nothing
// is logged (its output is the tests' report).
func applyDefaultPacing() error {
	p, err := gcpacing.Resolve(gcpacing.Given{}, gcpacing.Given{}, gcpacing.CurrentRuntime(os.LookupEnv),
		func() (gcpacing.Memory, error) { return gcpacing.MachineMemory(os.DirFS("/")) })
	if err != nil {
		return configError{err}
	}
	p.Apply()
	return nil
}
