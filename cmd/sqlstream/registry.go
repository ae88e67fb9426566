package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"

	"github.com/sqlstream/sqlstream/cmd/sqlstream/internal/cli"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/schemaregistry"
	"github.com/sqlstream/sqlstream/server"
)

// embeddedRegistry is the schema registry a server runs beside its
// engine, on its own listener (Confluent clients expect a registry at a
// base URL of its own).
type embeddedRegistry struct {
	reg *schemaregistry.Registry
	srv *http.Server
	url string
}

// startRegistry starts the embedded registry when s says it runs, and
// returns the engine properties with its URL as ksql.schema.registry.url.
// With an external registry configured it starts nothing and says so.
func startRegistry(ctx context.Context, s cli.Settings, bootstrap []string, log *slog.Logger) (*embeddedRegistry, map[string]string, error) {
	set := maps.Clone(s.Properties)
	if s.SchemaRegistryListen == "" {
		if u := set[props.SchemaRegistryURL]; u != "" {
			log.Info("using an external schema registry; the embedded one does not start", "url", u)
		}
		return nil, engineProperties(set, log), nil
	}
	opts, err := registryOptions(s, bootstrap, log)
	if err != nil {
		return nil, nil, err
	}
	e, err := serveRegistry(ctx, s.SchemaRegistryListen, opts)
	if err != nil {
		return nil, nil, err
	}
	set[props.SchemaRegistryURL] = e.url
	log.Info("schema registry ready", "url", e.url, "topic", s.SchemaRegistryTopic)
	return e, engineProperties(set, log), nil
}

// registryOptions configures the registry from the server's properties:
// the Kafka it keeps its topic in, reached with the engine's own security
// settings (security.protocol, SASL, TLS: the topic lives on the Kafka the
// engine uses), and the HTTP API's BASIC users. It warns about a registry
// reachable beyond loopback without authentication, or in plain HTTP
// beside an HTTPS API.
func registryOptions(s cli.Settings, bootstrap []string, log *slog.Logger) ([]schemaregistry.Option, error) {
	p := props.Server(s.Properties)
	security, err := runtime.KafkaSecurity(p)
	if err != nil {
		return nil, fmt.Errorf("the embedded schema registry's Kafka client: %w", err)
	}
	opts := []schemaregistry.Option{
		schemaregistry.WithKafka(append([]kgo.Opt{kgo.SeedBrokers(bootstrap...)}, security...)...),
		schemaregistry.WithTopic(s.SchemaRegistryTopic),
		schemaregistry.WithLogger(log.With("component", "schema-registry")),
	}
	if s.BrokerUser != "" {
		// The embedded broker takes SASL (authentication.method=BASIC): the
		// registry's _schemas topic is internal, so it logs in as the
		// engine does, as the broker's internal user.
		opts = append(opts, schemaregistry.WithKafka(kgo.SASL(plain.Auth{User: s.BrokerUser, Pass: s.BrokerPassword}.AsMechanism())))
	}
	open := !isLoopback(s.SchemaRegistryListen)
	if strings.EqualFold(p[props.AuthMethod], "BASIC") {
		users, roles, err := readUsers(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, schemaregistry.WithBasicAuth(p[props.AuthRealm], server.BasicAuthCheck(roles, users)))
	} else if open {
		log.Warn("the schema registry listens beyond loopback without authentication: anyone who reaches it can change schemas (set authentication.method=BASIC)",
			"listen", s.SchemaRegistryListen)
	}
	if open && strings.HasPrefix(strings.ToLower(strings.TrimSpace(p[props.Listeners])), "https://") {
		// Deviation: the registry serves plain HTTP even beside an HTTPS
		// API, so that the engine and local clients need no trust setup.
		log.Warn("the schema registry serves plain HTTP beyond loopback although the HTTP API uses HTTPS: its credentials and schemas cross the network unencrypted",
			"listen", s.SchemaRegistryListen)
	}
	return opts, nil
}

// serverOptions hands the registry to the HTTP server, which serves it
// read-only under /schema-registry/ for the web console (none without an
// embedded registry).
func (e *embeddedRegistry) serverOptions() []server.Option {
	if e == nil {
		return nil
	}
	return []server.Option{server.WithSchemaRegistry(e.reg.Handler())}
}

// serveRegistry binds addr first (a port in use is an error naming the
// flag before anything else starts), then opens the registry on Kafka.
func serveRegistry(ctx context.Context, addr string, opts []schemaregistry.Option) (*embeddedRegistry, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--schema-registry-listen %s: %w (choose another address, or set %s to use the registry already there)", addr, err, props.SchemaRegistryURL)
	}
	reg, err := schemaregistry.New(ctx, opts...)
	if err != nil {
		return nil, errors.Join(err, ln.Close())
	}
	e := &embeddedRegistry{reg: reg, url: "http://" + loopbackAddr(ln.Addr().String()),
		srv: &http.Server{Handler: reg.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = e.srv.Serve(ln) }() // returns ErrServerClosed on close
	return e, nil
}

// isLoopback reports whether host:port names a loopback host.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackAddr turns an unspecified listen host into 127.0.0.1, the
// address the engine on this machine calls.
func loopbackAddr(bound string) string {
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return bound
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// engineProperties drops ksql.schema.registry.url when the engine does
// not declare it (a build whose engine has no schema-registry formats
// yet), with a warning, rather than fail the engine's start.
func engineProperties(given map[string]string, log *slog.Logger) map[string]string {
	u, ok := given[props.SchemaRegistryURL]
	if !ok {
		return given
	}
	if err := props.Check(props.SchemaRegistryURL, u); err != nil {
		log.Warn("the engine does not take "+props.SchemaRegistryURL+"; its formats will not use the registry", "url", u, "err", err)
		delete(given, props.SchemaRegistryURL)
	}
	return given
}

// close stops serving, then the registry.
func (e *embeddedRegistry) close(ctx context.Context) error {
	if e == nil {
		return nil
	}
	err := e.srv.Shutdown(ctx)
	e.reg.Close()
	return err
}
