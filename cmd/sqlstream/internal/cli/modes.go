package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// runServer serves until ctx ends (SIGINT or SIGTERM), logging to stderr.
func runServer(ctx context.Context, s Settings, svc Services, stdio Stdio) error {
	log := newLogger(stdio.Err, s.LogLevel)
	n, err := startNode(ctx, s, svc, log)
	if err != nil {
		return err
	}
	log.Info("sqlstream ready", "url", n.serverURL(), "kafka", strings.Join(n.bootstrap, ","),
		"embedded_broker", s.Embedded(), "data_dir", s.DataDir)
	<-ctx.Done()
	log.Info("shutting down")
	return n.shutdown()
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
	log := newLogger(f, s.LogLevel)
	n, err := startNode(ctx, s, svc, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdio.Err, "sqlstream: HTTP API at %s, Kafka at %s, logs in %s\n",
		n.serverURL(), strings.Join(n.bootstrap, ","), s.LogFile())
	rerr := svc.RunREPL(ctx, REPLConfig{ServerURL: n.serverURL(), HistoryFile: s.HistoryFile(), Stdio: stdio})
	log.Info("shutting down")
	return errors.Join(rerr, n.shutdown())
}
