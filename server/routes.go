package server

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
)

// routes builds the router: ksqlDB's route table (ServerVerticle) plus the
// recover, logging, metrics and same-site middleware.
func (s *Server) routes() http.Handler {
	r := chi.NewRouter()
	r.Use(s.recoverer, s.logRequests, s.instrument, s.authenticate, s.sameSite)
	r.NotFound(notFound)
	r.MethodNotAllowed(methodNotAllowed)

	s.consoleRoutes(r)
	r.Post("/ksql", s.handleKsql)
	r.Post("/query", s.handleQuery)
	r.Post("/query-stream", s.handleQueryStream)
	r.Post("/close-query", s.handleCloseQuery)
	r.Post("/inserts-stream", s.handleInsertsStream)
	r.Get("/info", s.handleInfo)
	r.Get("/healthcheck", s.handleHealthcheck)
	r.Get("/chc/live", s.handleLive)
	r.Get("/chc/ready", s.handleReady)
	r.Get("/status", s.handleStatuses)
	r.Get("/clusterStatus", s.handleClusterStatus)
	r.Get("/tasks", s.handleTasks)
	r.Get("/clusterTasks", s.handleClusterTasks)
	r.Get("/clusterMetrics", s.handleClusterMetrics)
	r.Post("/heartbeat", s.handleHeartbeat)
	r.Post("/lag", s.handleLag)
	r.Method(http.MethodGet, "/metrics", s.metricsHandler())
	r.Get("/status/{type}/{entity}/{action}", s.handleStatus)
	r.Get("/is_valid_property/{property}", s.handleIsValidProperty)
	return r
}

// notFound answers an unknown path like ksqlDB (Vert.x): 404, "Not Found".
func notFound(w http.ResponseWriter, _ *http.Request) {
	writePlain(w, http.StatusNotFound, "Not Found")
}

func methodNotAllowed(w http.ResponseWriter, _ *http.Request) {
	writePlain(w, http.StatusMethodNotAllowed, "Method Not Allowed")
}

func writePlain(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// consoleRoutes mounts the web console (WithConsole) and the read-only
// view of the embedded schema registry (WithSchemaRegistry). GET / is the
// console for a browser (a request that names text/html in its Accept);
// any other client, and every client without a console, is redirected to
// /info, as ksqlDB redirects it.
func (s *Server) consoleRoutes(r chi.Router) {
	c := s.cfg.console
	if c != nil {
		for _, p := range c.Paths() {
			if p == "/" {
				continue
			}
			r.Method(http.MethodGet, p, c)
			r.Method(http.MethodHead, p, c)
		}
	}
	root := func(w http.ResponseWriter, req *http.Request) {
		if c != nil && wantsHTML(req) {
			c.ServeHTTP(w, req)
			return
		}
		w.Header().Set("Location", "/info")
		w.Header().Add("Vary", "Accept")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}
	r.Get("/", root)
	r.Head("/", root)
	if reg := s.cfg.registry; reg != nil {
		r.Mount("/schema-registry", http.StripPrefix("/schema-registry", readOnly(reg)))
	}
}

// wantsHTML says whether the request's Accept names text/html itself (a
// browser's navigation does; curl's */* and API clients do not).
func wantsHTML(r *http.Request) bool {
	for _, rng := range parseAccept(strings.Join(r.Header.Values("Accept"), ",")) {
		if rng.media == "text/html" {
			return true
		}
	}
	return false
}

// readOnly passes GET and HEAD requests to h and refuses others with 405.
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			methodNotAllowed(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
