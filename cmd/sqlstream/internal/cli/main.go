package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sqlstream/sqlstream/nexmark"
)

// Main runs the sqlstream command line with args (without the program
// name) and returns the process exit code: 0 on success, 1 when running
// failed, 2 for bad usage or configuration.
//
//	sqlstream [flags]           server + REPL in one process
//	sqlstream server [flags]    server only
//	sqlstream repl [flags]      REPL against a running server
//	sqlstream broker [flags]    embedded broker only
//	sqlstream nexmark [flags]   produce Nexmark events (package nexmark)
//	sqlstream test [args]       test runner (when Services implement TestRunner)
//	sqlstream version
func Main(args []string, stdio Stdio, svc Services) int {
	cmd, rest := splitCommand(args)
	switch cmd {
	case "":
		return exitCode(stdio, serveCommand(rest, stdio, svc, true))
	case "server":
		return exitCode(stdio, serveCommand(rest, stdio, svc, false))
	case "repl":
		return exitCode(stdio, replCommand(rest, stdio, svc))
	case "broker":
		return exitCode(stdio, brokerCommand(rest, stdio, svc))
	case "nexmark":
		ctx, stop := signalContext(false)
		defer stop()
		return nexmark.Command(ctx, rest, stdio.Out, stdio.Err)
	case "version":
		fmt.Fprintln(stdio.Out, versionString())
		return 0
	case "help":
		printUsage(stdio.Out, svc)
		return 0
	}
	if tr, ok := svc.(TestRunner); ok && cmd == "test" {
		// The runner's engines run in this process: at the server's
		// default pacing (GOGC and GOMEMLIMIT win, as for the server).
		if err := applyDefaultPacing(); err != nil {
			return exitCode(stdio, err)
		}
		return tr.RunTests(rest, stdio.Out, stdio.Err)
	}
	fmt.Fprintf(stdio.Err, "sqlstream: unknown command %q\n\n", cmd)
	printUsage(stdio.Err, svc)
	return 2
}

// splitCommand separates a leading subcommand; flags first mean the
// combined server+REPL mode.
func splitCommand(args []string) (string, []string) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", args
	}
	return args[0], args[1:]
}

func exitCode(stdio Stdio, err error) int {
	var cerr configError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &cerr):
		fmt.Fprintf(stdio.Err, "sqlstream: %v\n", err)
		return 2
	default:
		fmt.Fprintf(stdio.Err, "sqlstream: %v\n", err)
		return 1
	}
}

func serveCommand(args []string, stdio Stdio, svc Services, combined bool) error {
	name := "sqlstream server"
	if combined {
		name = "sqlstream"
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	sf := newServerFlags(fs)
	var cpuProfile *string
	if !combined {
		cpuProfile = fs.String("cpu-profile", "", "diagnostics: write a CPU profile (runtime/pprof) of the server from its ready line to the signal that stops it to FILE, for go tool pprof")
	}
	fs.Usage = func() { printServeUsage(fs.Output(), fs, svc, combined) }
	s, err := parseAndResolve(fs, args, stdio, sf.resolve)
	if err != nil {
		return err
	}
	if cpuProfile != nil {
		s.CPUProfile = *cpuProfile
	}
	ctx, stop := signalContext(combined)
	defer stop()
	if combined {
		return runCombined(ctx, s, svc, stdio)
	}
	return runServer(ctx, s, svc, stdio)
}

// parseAndResolve parses flags, printing usage for --help, and turns them
// into validated settings. Flag errors are reported by exitCode.
func parseAndResolve[T any](fs *flag.FlagSet, args []string, stdio Stdio, resolve func() (T, error)) (T, error) {
	var zero T
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdio.Out)
			fs.Usage()
			return zero, err
		}
		return zero, configErrorf("%v (see --help)", err)
	}
	if fs.NArg() > 0 {
		return zero, configErrorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	return resolve()
}

// signalContext ends on SIGTERM, and on SIGINT unless a REPL runs: the REPL
// handles Ctrl-C itself, so the process must not die from it.
func signalContext(interactive bool) (context.Context, func()) {
	if !interactive {
		return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	}
	swallow := make(chan os.Signal, 1) // never read: extra SIGINTs are dropped
	signal.Notify(swallow, os.Interrupt)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	return ctx, func() { stop(); signal.Stop(swallow) }
}
