package server

import (
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
//     on the allow-list (WithAllowedOrigins, access.control.allow.origin),
//     and a POST a browser marks as cross-site (Sec-Fetch-Site) must carry
//     an allowed Origin too, for browsers that omit Origin on a form post.
//
// The body's Content-Type is not checked, as in ksqlDB: its documented
// curl commands send none (curl -d then says
// application/x-www-form-urlencoded), and every browser request that
// could carry a foreign page's body has an Origin or Sec-Fetch-Site that
// the checks above refuse with 403. Clients outside browsers (the REPL,
// curl, ksqlDB clients) send neither, and pass.
func (s *Server) sameSite(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if msg := s.crossSite(r); msg != "" {
			s.cfg.logger.Warn("refused a cross-site request", "method", r.Method, "path", r.URL.Path, "origin", r.Header.Get("Origin"),
				"host", r.Host, "content_type", r.Header.Get("Content-Type"), "reason", msg)
			writeErrorBody(w, &api.ErrorMessage{ErrorCode: api.CodeForbidden, Message: msg})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// crossSite explains why r comes from a foreign site, or returns "". The
// Origin and Sec-Fetch-Site are checked on POSTs only: browsers send them
// on some same-site GETs and on links followed from other sites too, and
// a GET changes nothing.
func (s *Server) crossSite(r *http.Request) string {
	if o := r.Header.Get("Origin"); r.Method == http.MethodPost && o != "" && !s.allowedOrigin(o, r.Host) {
		return "Origin " + o + " may not send requests to this server: add it to access.control.allow.origin to allow it"
	}
	if site := r.Header.Get("Sec-Fetch-Site"); r.Method == http.MethodPost && r.Header.Get("Origin") == "" && (site == "cross-site" || site == "same-site") {
		return "a " + site + " browser request without an Origin may not send requests to this server"
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
