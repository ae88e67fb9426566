package server

import (
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Option configures a Server.
type Option interface {
	apply(*config)
}

type config struct {
	listen              string
	logger              *slog.Logger
	allowedOrigins      []string
	bodyReadTimeout     time.Duration
	stalledWriteTimeout time.Duration
	auth                *basicAuth   // nil: no authentication
	tls                 *tls.Config  // nil: plain HTTP
	ln                  net.Listener // bound already (WithNetListener), or nil
	console             Console      // nil: GET / redirects to /info
	registry            http.Handler // the embedded schema registry, or nil
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithListen sets the address to listen on, host:port. Port 0 picks a free
// port (see Server.Addr). Default: 127.0.0.1:8088.
func WithListen(addr string) Option {
	return optionFunc(func(c *config) { c.listen = addr })
}

// WithNetListener serves on ln, bound by the caller (who needed its
// address before the engine started, to advertise it), instead of
// binding the listen address. The listen address becomes ln's.
func WithNetListener(ln net.Listener) Option {
	return optionFunc(func(c *config) { c.ln, c.listen = ln, ln.Addr().String() })
}

// WithLogger sets the logger for request failures and recovered panics.
// Default: a logger that discards everything.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// WithAllowedOrigins lists the web origins ("https://ui.example.com", or
// "*" for any) whose pages may POST to the API besides the server's own.
// Default: none (ksqlDB's access.control.allow.origin).
func WithAllowedOrigins(origins ...string) Option {
	return optionFunc(func(c *config) { c.allowedOrigins = origins })
}

// WithBodyReadTimeout bounds the time a client may take to send the body
// of a non-streaming request (and the first line of /inserts-stream);
// slower is a 408. Default: 30s.
func WithBodyReadTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.bodyReadTimeout = d })
}

// WithStalledWriteTimeout bounds the time one write of a streaming
// response (a push query row, an insert acknowledgement) may block on a
// client that does not read; the client is then dropped and its query
// closed. 0 waits forever. Default: 60s.
func WithStalledWriteTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.stalledWriteTimeout = d })
}

// WithBasicAuth requires HTTP basic authentication (ksqlDB's
// authentication.method=BASIC) of a user of users with one of roles ("*":
// any role, ksqlDB's default), answering 401 in realm otherwise. Default:
// no authentication.
func WithBasicAuth(realm string, roles []string, users Users) Option {
	return optionFunc(func(c *config) { c.auth = &basicAuth{realm: realm, roles: roles, users: users} })
}

// WithTLS serves HTTPS with cfg (its certificates) instead of HTTP.
// Default: plain HTTP.
func WithTLS(cfg *tls.Config) Option {
	return optionFunc(func(c *config) { c.tls = cfg })
}

// Console is the web console's handler (console.Handler) and the paths
// it serves, "/" among them (the server hands "/" to it only for a
// browser's request, one whose Accept names text/html).
type Console interface {
	http.Handler
	Paths() []string
}

// WithConsole serves the web console at "/" (to browsers: other clients
// are still redirected to /info) and its assets on the API's listener,
// behind the same authentication and TLS. Default: none, and GET /
// redirects to /info as ksqlDB's does.
func WithConsole(c Console) Option {
	return optionFunc(func(cfg *config) { cfg.console = c })
}

// WithSchemaRegistry serves GET and HEAD requests under /schema-registry/
// from h, the embedded schema registry's handler, so the console reads its
// subjects from its own origin; writes are refused (405). Default: none
// (404).
func WithSchemaRegistry(h http.Handler) Option {
	return optionFunc(func(c *config) { c.registry = h })
}

func defaultConfig() config {
	return config{
		listen:              "127.0.0.1:8088",
		logger:              slog.New(slog.NewTextHandler(io.Discard, nil)),
		bodyReadTimeout:     30 * time.Second,
		stalledWriteTimeout: 60 * time.Second,
	}
}

func (c *config) validate() error {
	if c.logger == nil {
		return errors.New("server: WithLogger(nil)")
	}
	if c.bodyReadTimeout <= 0 || c.stalledWriteTimeout < 0 {
		return errors.New("server: the body read timeout must be positive and the stalled write timeout not negative")
	}
	if _, _, err := net.SplitHostPort(c.listen); err != nil {
		return errors.New("server: listen address " + c.listen + ": " + err.Error())
	}
	if c.auth != nil && len(c.auth.users) == 0 {
		return errors.New("server: basic authentication without users")
	}
	if c.tls != nil && len(c.tls.Certificates) == 0 && c.tls.GetCertificate == nil {
		return errors.New("server: TLS without a certificate")
	}
	return nil
}
