package server

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/sqlstream/sqlstream/api"
)

// sameSite guards the API against requests a web page makes on a
// visitor's behalf:
//
//   - on a loopback listener the Host header of every request, whatever
//     its method, must name a loopback host, so a DNS-rebound name can
//     neither run statements nor read /info, /clusterStatus or /metrics;
//   - on the state-changing endpoints (every POST) an Origin header (sent
//     by browsers on cross-site POSTs) must be the server's own origin or
//     on the allow-list (WithAllowedOrigins, access.control.allow.origin);
//   - a declared body type must be JSON (or ksqlDB's delimited format),
//     which a plain HTML form or a "simple" fetch cannot send without a
//     CORS preflight that this server never grants; text/plain and form
//     encodings get 415 (ksqlDB accepts any type: a deliberate deviation).
//
// Clients outside browsers (the REPL, curl with -H, ksqlDB clients) send
// no Origin and a JSON content type, and pass.
func (s *Server) sameSite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := s.crossSite(r); msg != "" {
			s.cfg.logger.Warn("refused a cross-site request", "method", r.Method, "path", r.URL.Path, "origin", r.Header.Get("Origin"),
				"host", r.Host, "content_type", r.Header.Get("Content-Type"), "reason", msg)
			writeErrorBody(w, &api.ErrorMessage{ErrorCode: api.CodeForbidden, Message: msg})
			return
		}
		if r.Method == http.MethodPost {
			if msg := jsonContent(r); msg != "" {
				writeErrorBody(w, &api.ErrorMessage{ErrorCode: api.CodeUnsupportedMediaType, Message: msg})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite explains why r comes from a foreign site, or returns "". The
// Origin is checked on POSTs only: browsers send it on some same-site
// GETs too, and a GET changes nothing.
func (s *Server) crossSite(r *http.Request) string {
	if o := r.Header.Get("Origin"); r.Method == http.MethodPost && o != "" && !s.allowedOrigin(o, r.Host) {
		return "Origin " + o + " may not send requests to this server: add it to access.control.allow.origin to allow it"
	}
	if s.loopbackOnly() && !loopbackHost(r.Host) {
		return "Host " + r.Host + " is not this server's: it listens on loopback only (connect to localhost or 127.0.0.1, " +
			"or set listeners to the address clients use)"
	}
	return ""
}

func (s *Server) allowedOrigin(origin, host string) bool {
	if u, err := url.Parse(origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == host {
		return true
	}
	for _, a := range s.cfg.allowedOrigins {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	return false
}

func (s *Server) loopbackOnly() bool {
	host, _, err := net.SplitHostPort(s.cfg.listen)
	return err == nil && loopbackHost(host)
}

// loopbackHost reports whether host (with or without a port) is localhost
// or a loopback address.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// jsonContent explains why r's body is not declared as JSON, or returns "".
func jsonContent(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case ct == "":
		// Browsers send a body without a type only with an Origin, which
		// crossSite has checked; other clients often omit it.
		return ""
	case err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == mediaDelimited):
		return ""
	}
	return "Content-Type " + quoteOrNone(ct) + " is not accepted: send application/json or " + mediaKsqlV1
}

func quoteOrNone(ct string) string {
	if ct == "" {
		return "(none)"
	}
	return "'" + ct + "'"
}
