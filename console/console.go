package console

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed dist
var dist embed.FS

// csp keeps the page to its own origin: scripts, fetches and images from
// 'self' only. CodeMirror and uPlot set inline styles, hence style-src
// 'unsafe-inline'.
const csp = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"style-src 'self' 'unsafe-inline'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one embedded file, read once.
type asset struct {
	body, gzip  []byte
	contentType string
	etag        string
}

// Handler serves the console: "/" is the page, /console/<file> its
// assets. It answers GET and HEAD; anything else under its paths is 405.
type Handler struct {
	assets map[string]asset // by URL path
}

var _ http.Handler = (*Handler)(nil)

// New reads the embedded bundle. It fails only if the bundle is not
// embedded (a build of the package without dist/).
func New() (*Handler, error) {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		return nil, err
	}
	h := &Handler{assets: map[string]asset{}}
	for name, urlPath := range map[string]string{"index.html": "/", "app.js": "/console/app.js",
		"app.css": "/console/app.css", "THIRD_PARTY_LICENSES.txt": "/console/THIRD_PARTY_LICENSES.txt"} {
		a, err := load(sub, name)
		if err != nil {
			return nil, err
		}
		h.assets[urlPath] = a
	}
	return h, nil
}

// load reads name and, when dist holds one, its gzipped copy.
func load(fsys fs.FS, name string) (asset, error) {
	body, err := fs.ReadFile(fsys, name)
	if err != nil {
		return asset{}, err
	}
	gz, err := fs.ReadFile(fsys, name+".gz")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return asset{}, err
	}
	sum := sha256.Sum256(body)
	return asset{body: body, gzip: gz, contentType: contentType(name), etag: `"` + hex.EncodeToString(sum[:8]) + `"`}, nil
}

func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	default:
		return "text/plain; charset=utf-8"
	}
}

// Paths are the URL paths the handler serves, for the server's router.
func (h *Handler) Paths() []string {
	out := make([]string, 0, len(h.assets))
	for p := range h.assets {
		out = append(out, p)
	}
	return out
}

// ServeHTTP serves one asset. The page and its assets are revalidated on
// every load (ETag), so a new binary's console is never hidden behind a
// cached one.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a, ok := h.assets[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.contentType)
	hd.Set("Cache-Control", "no-cache")
	hd.Set("ETag", a.etag)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", csp)
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Add("Vary", "Accept-Encoding")
	if match := r.Header.Get("If-None-Match"); match != "" && match == a.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := a.body
	if a.gzip != nil && acceptsGzip(r) {
		hd.Set("Content-Encoding", "gzip")
		body = a.gzip
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(body)
	}
}

// acceptsGzip says whether the request's Accept-Encoding lists gzip with
// a non-zero quality.
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			return !ok || (q != "0" && q != "0.0" && q != "0.00" && q != "0.000")
		}
	}
	return false
}
