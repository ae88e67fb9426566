package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/sqlstream/sqlstream/cmd/sqlstream/internal/cli"
	"github.com/sqlstream/sqlstream/console"
	"github.com/sqlstream/sqlstream/internal/version"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/qtt/driver"
	"github.com/sqlstream/sqlstream/qtt/rest"
	"github.com/sqlstream/sqlstream/qtt/sqltest"
	"github.com/sqlstream/sqlstream/repl"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/server"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// wiring connects the command line to the engine, the HTTP server, the
// REPL and the test runner.
type wiring struct{}

var (
	_ cli.Services      = wiring{}
	_ cli.TestRunner    = wiring{}
	_ cli.RegistryStack = stack{}

	// The engine answers GET /status/… and /is_valid_property/… itself.
	_ server.CommandStatusLookup = (*runtime.Engine)(nil)
	_ server.PropertyValidator   = (*runtime.Engine)(nil)
	_ server.Peering             = (*runtime.Engine)(nil)
	_ server.Readiness           = (*runtime.Engine)(nil)
	_ server.MetricsProvider     = (*runtime.Engine)(nil)
)

// advertisedListener is ksql.advertised.listener, or the URL of the
// bound address (scheme from listeners; an unspecified host becomes the
// machine's name, with a warning).
func advertisedListener(given map[string]string, bound string, log *slog.Logger) (string, error) {
	if v := strings.TrimRight(given[props.AdvertisedListener], "/"); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", fmt.Errorf("%s: want http(s)://host:port, got %q", props.AdvertisedListener, v)
		}
		return v, nil
	}
	scheme := "http"
	if strings.HasPrefix(strings.TrimSpace(given[props.Listeners]), "https://") {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return "", err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		name, err := os.Hostname()
		if err != nil {
			return "", fmt.Errorf("listening on %s: set %s (%v)", bound, props.AdvertisedListener, err)
		}
		log.Warn("listening on all interfaces without "+props.AdvertisedListener+"; the other servers are told to call this host by its name", "host", name)
		host = name
	}
	return scheme + "://" + net.JoinHostPort(host, port), nil
}

// StartStack starts the embedded schema registry (when it runs here),
// then the engine on bootstrap, then its HTTP server.
func (wiring) StartStack(ctx context.Context, s cli.Settings, bootstrap []string, log *slog.Logger) (cli.Stack, error) {
	if err := checkKafkaSecurity(s.Embedded(), props.Server(s.Properties)); err != nil {
		return nil, err
	}
	// The embedded schema registry starts first: the engine is told its
	// URL as ksql.schema.registry.url.
	reg, props, err := startRegistry(ctx, s, bootstrap, log)
	if err != nil {
		return nil, err
	}
	s.Properties = props
	st, err := startEngineAndServer(ctx, s, bootstrap, log, reg.serverOptions()...)
	if err != nil {
		return nil, errors.Join(err, reg.close(context.Background()))
	}
	st.reg = reg
	return st, nil
}

// startEngineAndServer starts the engine on bootstrap, then its HTTP
// server (with the web console, and extra options).
func startEngineAndServer(ctx context.Context, s cli.Settings, bootstrap []string, log *slog.Logger, extra ...server.Option) (stack, error) {
	// Bound before the engine starts: its queries advertise the address
	// to the other servers of the service id as they join their groups.
	ln, err := net.Listen("tcp", s.Listen)
	if err != nil {
		return stack{}, fmt.Errorf("HTTP server on %s: %w", s.Listen, err)
	}
	advertised, err := advertisedListener(props.Server(s.Properties), ln.Addr().String(), log)
	if err != nil {
		return stack{}, errors.Join(err, ln.Close())
	}
	opts := []runtime.Option{
		runtime.WithAdvertisedListener(advertised),
		runtime.WithBootstrap(bootstrap),
		runtime.WithServiceID(s.ServiceID),
		runtime.WithDataDir(s.StateDir()),
		runtime.WithProperties(s.Properties),
		runtime.WithLogger(log.With("component", "engine")),
	}
	if s.BrokerUser != "" {
		opts = append(opts, runtime.WithKafkaSASL(plain.Auth{User: s.BrokerUser, Pass: s.BrokerPassword}.AsMechanism()))
	}
	eng, err := runtime.New(ctx, opts...)
	if err != nil {
		return stack{}, errors.Join(err, ln.Close())
	}
	security, err := serverSecurity(props.Server(s.Properties))
	if err != nil {
		return stack{}, errors.Join(err, eng.Close(), ln.Close())
	}
	ui, err := console.New()
	if err != nil {
		return stack{}, errors.Join(fmt.Errorf("web console: %w (an internal error: the build lacks console/dist)", err), eng.Close(), ln.Close())
	}
	srvOpts := append(security, server.WithNetListener(ln), server.WithLogger(log.With("component", "server")),
		server.WithAllowedOrigins(splitOrigins(s.Properties[props.AllowOrigin])...), server.WithConsole(ui))
	srv := server.New(taskEngine{eng}, append(srvOpts, extra...)...)
	if err := srv.Start(); err != nil {
		return stack{}, errors.Join(fmt.Errorf("HTTP server on %s: %w", s.Listen, err), eng.Close(), ln.Close())
	}
	return stack{eng: eng, srv: srv}, nil
}

// RunREPL runs the interactive shell.
func (wiring) RunREPL(ctx context.Context, c cli.REPLConfig) error {
	return repl.Run(ctx, repl.Config{
		ServerURL:   c.ServerURL,
		HistoryFile: c.HistoryFile,
		Stdin:       c.Stdio.In,
		Stdout:      c.Stdio.Out,
		Stderr:      c.Stdio.Err,
		User:        c.User,
		Password:    c.Password,
		CAFile:      c.CAFile,
		Version:     version.String(),
	})
}

// RunTests runs `sqlstream test` on in-memory engines: QTT files, RQTT
// files through the REST runner and ksqlDB's SQL test files.
func (wiring) RunTests(args []string, stdout, stderr io.Writer) int {
	return qtt.Main(args, stdout, stderr, driver.New, []qtt.Format{sqltest.Format{}, rest.Format{}})
}

// stack is the engine behind its HTTP server.
type stack struct {
	eng *runtime.Engine
	srv *server.Server
	reg *embeddedRegistry // nil when none runs here
}

func (st stack) Addr() string { return st.srv.Addr() }

// SchemaRegistryURL is the embedded registry's URL, or "" without one.
func (st stack) SchemaRegistryURL() string {
	if st.reg == nil {
		return ""
	}
	return st.reg.url
}

// Shutdown stops the HTTP server (ending running queries), then the
// engine, then the schema registry the engine may still have called.
func (st stack) Shutdown(ctx context.Context) error {
	return errors.Join(st.srv.Shutdown(ctx), st.eng.Close(), st.reg.close(ctx))
}

// splitOrigins parses access.control.allow.origin: origins separated by
// commas, blanks ignored.
func splitOrigins(v string) []string {
	var out []string
	for _, o := range strings.Split(v, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}
