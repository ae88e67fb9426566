package console

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func newHandler(t *testing.T) *Handler {
	t.Helper()
	h, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestServesPageAndAssets: "/" is the page, its assets are served with
// their types, the page's CSP keeps it to its origin, and other paths or
// methods are refused.
func TestServesPageAndAssets(t *testing.T) {
	h := newHandler(t)
	for path, ctype := range map[string]string{"/": "text/html", "/console/app.js": "text/javascript", "/console/app.css": "text/css",
		"/console/THIRD_PARTY_LICENSES.txt": "text/plain"} {
		rec := get(h, http.MethodGet, path, nil)
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), ctype) || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d %q, %d bytes", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
		}
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self'") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
	if rec := get(h, http.MethodGet, "/console/nope.js", nil); rec.Code != http.StatusNotFound {
		t.Errorf("unknown asset: %d", rec.Code)
	}
	if rec := get(h, http.MethodPost, "/", nil); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	if rec := get(h, http.MethodHead, "/console/app.js", nil); rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: %d, %d bytes, length %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Length"))
	}
}

// TestGzipAndETag: a client accepting gzip gets the precompressed copy,
// which inflates to the plain one; a matching If-None-Match is 304.
func TestGzipAndETag(t *testing.T) {
	h := newHandler(t)
	plain := get(h, http.MethodGet, "/console/app.js", nil)
	gz := get(h, http.MethodGet, "/console/app.js", map[string]string{"Accept-Encoding": "br, gzip"})
	if gz.Header().Get("Content-Encoding") != "gzip" || plain.Header().Get("Content-Encoding") != "" {
		t.Fatalf("encodings: gzip answer %q, plain answer %q", gz.Header().Get("Content-Encoding"), plain.Header().Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(gz.Body)
	if err != nil {
		t.Fatal(err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(inflated, plain.Body.Bytes()) {
		t.Fatalf("the gzipped bundle is not the bundle (%v): %d vs %d bytes", err, len(inflated), plain.Body.Len())
	}
	if rec := get(h, http.MethodGet, "/console/app.js", map[string]string{"Accept-Encoding": "gzip;q=0"}); rec.Header().Get("Content-Encoding") != "" {
		t.Errorf("gzip;q=0 got gzip")
	}
	etag := plain.Header().Get("ETag")
	if rec := get(h, http.MethodGet, "/console/app.js", map[string]string{"If-None-Match": etag}); etag == "" || rec.Code != http.StatusNotModified {
		t.Errorf("If-None-Match %q: %d", etag, rec.Code)
	}
}

// TestPageLoadsOnlyItsOwnAssets: every src and href of the page names a
// path on the same origin (or a data: URL); nothing is fetched elsewhere.
func TestPageLoadsOnlyItsOwnAssets(t *testing.T) {
	page := get(newHandler(t), http.MethodGet, "/", nil).Body.String()
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 3 {
		t.Fatalf("the page names %d assets", len(refs))
	}
	for _, m := range refs {
		if !strings.HasPrefix(m[1], "/") && !strings.HasPrefix(m[1], "data:") || strings.HasPrefix(m[1], "//") {
			t.Errorf("the page loads %q", m[1])
		}
	}
	for _, id := range []string{"sql-editor", "run", "result", "sources", "queries", "topology"} {
		if !strings.Contains(page, `data-testid="`+id+`"`) {
			t.Errorf("the page has no data-testid=%q", id)
		}
	}
}
