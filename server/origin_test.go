package server

import (
	"io"
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
		{"curl -d", "127.0.0.1:8088", "", "application/x-www-form-urlencoded", nil, http.StatusOK},
		{"text/plain", "[::1]:8088", "", "text/plain", nil, http.StatusOK},
		{"foreign form post", "127.0.0.1:8088", "https://evil.example", "application/x-www-form-urlencoded", nil, http.StatusForbidden},
		{"foreign text/plain", "127.0.0.1:8088", "null", "text/plain", nil, http.StatusForbidden},
		{"allowed text/plain", "127.0.0.1:8088", "https://ui.example", "text/plain", []string{"https://ui.example"}, http.StatusOK},
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

// TestSameSiteFetchMetadata: a browser that marks a POST cross-site but
// sends no Origin (older form posts) is refused too; same-origin passes.
func TestSameSiteFetchMetadata(t *testing.T) {
	for site, status := range map[string]int{"cross-site": http.StatusForbidden, "same-site": http.StatusForbidden,
		"same-origin": http.StatusOK, "none": http.StatusOK} {
		s := New(newFakeEngine())
		req := httptest.NewRequest("POST", "/ksql", strings.NewReader(`{"ksql":"SHOW STREAMS;"}`))
		req.Host = "127.0.0.1:8088"
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("Sec-Fetch-Site", site)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != status {
			t.Errorf("Sec-Fetch-Site %s: status %d, want %d: %s", site, rec.Code, status, rec.Body.String())
		}
	}
}

// localRequest is httptest.NewRequest with a loopback Host, as a client
// of a server listening on 127.0.0.1 sends (httptest's default Host,
// example.com, is refused there: TestHostCheckedOnEveryMethod).
func localRequest(method, target string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1:8088"
	return req
}
