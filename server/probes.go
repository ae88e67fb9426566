package server

import (
	"context"
	"net/http"

	"github.com/sqlstream/sqlstream/api"
)

// Readiness is an optional Engine extension behind GET /chc/ready: nil
// once the engine serves everything it restored at startup, else an error
// saying what it still waits for. An engine without it is ready as soon
// as the server answers.
type Readiness interface {
	Ready(ctx context.Context) error
}

// handleLive serves GET /chc/live, ksqlDB's liveness probe: 200 and an
// empty JSON object while the process serves HTTP.
func (s *Server) handleLive(w http.ResponseWriter, _ *http.Request) {
	writeProbe(w)
}

// handleReady serves GET /chc/ready, ksqlDB's readiness probe: 200 and an
// empty JSON object once the engine is ready (Readiness), else 503 with
// error 50302 and what it waits for. ksqlDB answers 200 on both probes
// as soon as its HTTP server listens; sqlstream's ready probe waits for
// the queries, so that a load balancer sends no pull query to a server
// whose tables are still being restored.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if rd, ok := s.engine.(Readiness); ok {
		if err := rd.Ready(r.Context()); err != nil {
			writeErrorBody(w, &api.ErrorMessage{ErrorCode: api.CodeServerNotReady, Message: err.Error()})
			return
		}
	}
	writeProbe(w)
}

func writeProbe(w http.ResponseWriter) {
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("{}"))
}

// isProbePath reports whether path is a health probe, answered without
// authentication (it tells no more than that the server is up).
func isProbePath(path string) bool {
	return path == "/healthcheck" || path == "/chc/live" || path == "/chc/ready"
}
