package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server serves the REST API of one Engine over HTTP/1.1 and h2c (HTTP/2
// with prior knowledge) on one port.
type Server struct {
	engine Engine
	cfg    config
	cfgErr error // from validate, reported by Start

	handler http.Handler
	http    *http.Server
	metrics *httpMetrics
	// base is the parent of every request context; Shutdown cancels it so
	// that push queries end instead of holding their connections open.
	base   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	ln      net.Listener
	serveCh chan error
}

// New returns a server for e. Invalid options are reported by Start.
func New(e Engine, opts ...Option) *Server {
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	s := &Server{engine: e, cfg: cfg, cfgErr: cfg.validate(), metrics: newHTTPMetrics()}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.handler = s.routes()
	s.http = s.newHTTPServer()
	return s
}

func (s *Server) newHTTPServer() *http.Server {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true) // h2c with prior knowledge on the same port
	p.SetHTTP2(true)            // h2 when serving TLS
	return &http.Server{
		Handler:           s.handler,
		Protocols:         p,
		ReadHeaderTimeout: 30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.base },
		ErrorLog:          slog.NewLogLogger(s.cfg.logger.Handler(), slog.LevelWarn),
	}
}

// Handler returns the HTTP handler with every route, for tests and for
// embedding in another server.
func (s *Server) Handler() http.Handler { return s.handler }

// Start binds the listen address and serves in the background. It returns
// once the server accepts connections.
func (s *Server) Start() error {
	if s.cfgErr != nil {
		return s.cfgErr
	}
	ln := s.cfg.ln
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", s.cfg.listen); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.ln, s.serveCh = ln, make(chan error, 1)
	s.mu.Unlock()
	s.warnIfOpen()
	if s.cfg.tls != nil {
		s.http.TLSConfig = s.cfg.tls
		go func() { s.serveCh <- s.http.ServeTLS(ln, "", "") }()
		return nil
	}
	go func() { s.serveCh <- s.http.Serve(ln) }()
	return nil
}

// warnIfOpen warns when the API is reachable beyond loopback and anyone
// reaching it may run statements.
func (s *Server) warnIfOpen() {
	switch {
	case s.loopbackOnly():
	case s.cfg.auth == nil:
		s.cfg.logger.Warn("the HTTP API listens beyond loopback without authentication: anyone who reaches it can run statements (set authentication.method=BASIC)",
			"listen", s.cfg.listen)
	case s.cfg.tls == nil:
		s.cfg.logger.Warn("basic authentication over plain HTTP beyond loopback: passwords cross the network in clear (use an https:// listener)",
			"listen", s.cfg.listen)
	}
}

// Addr returns the address the server listens on (host:port), or "" before
// Start.
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}

// Shutdown ends running queries, stops accepting connections and waits
// for in-flight requests to finish or ctx to expire.
func (s *Server) Shutdown(ctx context.Context) error {
	s.cancel()
	err := s.http.Shutdown(ctx)
	s.mu.Lock()
	ch := s.serveCh
	s.mu.Unlock()
	if ch == nil {
		return err
	}
	if serveErr := <-ch; !errors.Is(serveErr, http.ErrServerClosed) && err == nil {
		err = serveErr
	}
	return err
}
