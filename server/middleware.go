package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/sqlstream/sqlstream/api"
)

// recoverer turns a panic in a handler into a logged 500 generic_error
// (when nothing was written yet) instead of a dropped connection.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &statusWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			switch {
			case v == nil:
				return
			case v == http.ErrAbortHandler:
				panic(v) // net/http's way to abort a response silently
			}
			s.cfg.logger.Error("panic in HTTP handler", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if !rw.wroteHeader {
				writeErrorBody(rw, &api.ErrorMessage{ErrorCode: api.CodeServerError,
					Message: fmt.Sprintf("internal error while handling %s %s: %v", r.Method, r.URL.Path, v)})
			}
		}()
		next.ServeHTTP(rw, r)
	})
}

// logRequests logs each request at debug level, and 5xx answers at error.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw, ok := w.(*statusWriter)
		if !ok {
			rw = &statusWriter{ResponseWriter: w}
		}
		next.ServeHTTP(rw, r)
		level := slog.LevelDebug
		if rw.status >= 500 {
			level = slog.LevelError
		}
		s.cfg.logger.Log(r.Context(), level, "http request", "method", r.Method, "path", r.URL.Path,
			"proto", r.Proto, "status", rw.status, "duration", time.Since(start))
	})
}

// statusWriter remembers the status written. It keeps Flush and
// full-duplex support reachable through Unwrap (http.ResponseController).
type statusWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.status, w.wroteHeader = http.StatusOK, true
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
