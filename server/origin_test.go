package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSameSite: a web page cannot make a visitor's browser run statements
// (issue 9.12). Each case is one POST /ksql against a loopback server.
func TestSameSite(t *testing.T) {
	for _, tc := range []struct {
		name, host, origin, ctype string
		allowed                   []string
		status                    int
	}{
		{"REPL", "127.0.0.1:8088", "", "application/vnd.ksql.v1+json", nil, http.StatusOK},
		{"curl without a type", "localhost:8088", "", "", nil, http.StatusOK},
		{"own origin", "127.0.0.1:8088", "http://127.0.0.1:8088", "application/json", nil, http.StatusOK},
		{"foreign origin", "127.0.0.1:8088", "https://evil.example", "application/json", nil, http.StatusForbidden},
		{"foreign origin allowed", "127.0.0.1:8088", "https://ui.example", "application/json", []string{"https://ui.example"}, http.StatusOK},
		{"any origin allowed", "127.0.0.1:8088", "https://ui.example", "application/json", []string{"*"}, http.StatusOK},
		{"DNS rebinding", "evil.example:8088", "", "application/json", nil, http.StatusForbidden},
		{"form post", "127.0.0.1:8088", "", "application/x-www-form-urlencoded", nil, http.StatusUnsupportedMediaType},
		{"text/plain", "[::1]:8088", "", "text/plain", nil, http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(newFakeEngine(), WithAllowedOrigins(tc.allowed...))
			req := httptest.NewRequest("POST", "/ksql", strings.NewReader(`{"ksql":"SHOW STREAMS;"}`))
			req.Host = tc.host
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body.String())
			}
		})
	}
}

// TestSameSiteOnAnyHost: a server listening beyond loopback accepts any
// Host (it cannot know its names) but still checks Origin.
func TestSameSiteOnAnyHost(t *testing.T) {
	s := New(newFakeEngine(), WithListen("0.0.0.0:8088"))
	req := httptest.NewRequest("POST", "/ksql", strings.NewReader(`{"ksql":"SHOW STREAMS;"}`))
	req.Host = "ksql.internal:8088"
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
	req.Header.Set("Origin", "https://evil.example")
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "access.control.allow.origin") {
		t.Fatalf("status %d: %s", rec.Code, rec.Body.String())
	}
}

// TestHostCheckedOnEveryMethod: on a loopback listener a DNS-rebound Host
// reads nothing either (issue 16.12): GETs of /info, /status and
// /healthcheck get 403 naming the Host, as a POST does; a loopback Host is
// served.
func TestHostCheckedOnEveryMethod(t *testing.T) {
	s := New(newFakeEngine())
	for _, path := range []string{"/info", "/status", "/healthcheck"} {
		for _, host := range []string{"evil.example:8088", "127.0.0.1:8088"} {
			req := httptest.NewRequest("GET", path, nil)
			req.Host = host
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			want := http.StatusOK
			if host == "evil.example:8088" {
				want = http.StatusForbidden
			}
			if rec.Code != want || (want == http.StatusForbidden && !strings.Contains(rec.Body.String(), "Host evil.example:8088")) {
				t.Errorf("GET %s Host %s: status %d, want %d: %s", path, host, rec.Code, want, rec.Body.String())
			}
		}
	}
}
