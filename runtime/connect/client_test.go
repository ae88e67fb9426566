package connect

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeConnect implements the few Kafka Connect REST endpoints the client
// uses, in memory. There is no Kafka Connect on this machine: this fake,
// written from Connect's REST API reference, is the only Connect the
// client is tested against.
type fakeConnect struct {
	mu         sync.Mutex
	connectors map[string]ConnectorInfo
	fail       int // answer 503 to this many requests first
	requests   []string
}

func newFakeConnect() *fakeConnect {
	return &fakeConnect{connectors: map[string]ConnectorInfo{}}
}

func (f *fakeConnect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.EscapedPath())
	if f.fail > 0 {
		f.fail--
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"error_code": 503, "message": "rebalancing"})
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/connectors":
		names := []string{}
		for n := range f.connectors {
			names = append(names, n)
		}
		writeJSON(w, http.StatusOK, names)
	case r.Method == http.MethodPost && r.URL.Path == "/connectors":
		f.create(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/connector-plugins":
		writeJSON(w, http.StatusOK, []PluginInfo{{Class: "io.example.FileSource", Type: "source", Version: "1.0"}})
	case r.Method == http.MethodPut && len(parts) == 4 && parts[0] == "connector-plugins":
		f.validate(w, r, parts[1])
	case len(parts) >= 2 && parts[0] == "connectors":
		f.connector(w, r, parts[1], parts[2:])
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"error_code": 404, "message": "HTTP 404 Not Found"})
	}
}

func (f *fakeConnect) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name   string            `json:"name"`
		Config map[string]string `json:"config"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error_code": 400, "message": err.Error()})
		return
	}
	if _, ok := f.connectors[req.Name]; ok {
		writeJSON(w, http.StatusConflict, map[string]any{"error_code": 409, "message": "Connector " + req.Name + " already exists"})
		return
	}
	info := ConnectorInfo{Name: req.Name, Config: req.Config, Tasks: []TaskID{}, Type: "source"}
	f.connectors[req.Name] = info
	writeJSON(w, http.StatusCreated, info)
}

func (f *fakeConnect) validate(w http.ResponseWriter, r *http.Request, plugin string) {
	var config map[string]string
	_ = json.NewDecoder(r.Body).Decode(&config)
	out := ConfigInfos{Name: plugin, Configs: []ConfigInfo{{Value: ConfigValue{Name: "file", Errors: []string{}}}}}
	if config["file"] == "" {
		out.ErrorCount = 1
		out.Configs[0].Value.Errors = []string{"Missing required configuration \"file\" which has no default value."}
	}
	writeJSON(w, http.StatusOK, out)
}

func (f *fakeConnect) connector(w http.ResponseWriter, r *http.Request, name string, rest []string) {
	info, ok := f.connectors[name]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{"error_code": 404, "message": "Connector " + name + " not found"})
		return
	}
	switch {
	case r.Method == http.MethodDelete && len(rest) == 0:
		delete(f.connectors, name)
		w.WriteHeader(http.StatusNoContent)
	case len(rest) == 0:
		writeJSON(w, http.StatusOK, info)
	case rest[0] == "status":
		writeJSON(w, http.StatusOK, StateInfo{Name: name, Connector: State{State: "RUNNING", WorkerID: "w:8083"},
			Tasks: []TaskState{{ID: 0, State: "RUNNING", WorkerID: "w:8083"}}, Type: info.Type})
	case rest[0] == "topics":
		writeJSON(w, http.StatusOK, map[string]map[string][]string{name: {"topics": {info.Config["topic"]}}})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func newTestClient(t *testing.T, f *fakeConnect) *Client {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, 5*time.Second, "Basic dTpw")
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	return c
}

// TestClientLifecycle: create, list, describe, status, topics, plugins,
// validate and delete, each on its Connect endpoint.
func TestClientLifecycle(t *testing.T) {
	f := newFakeConnect()
	c := newTestClient(t, f)
	ctx := context.Background()
	config := map[string]string{"connector.class": "io.example.FileSource", "topic": "lines", "file": "/tmp/x", "name": "my src"}
	info, err := c.Create(ctx, "my src", config)
	if err != nil || info.Name != "my src" || info.Type != "source" || !reflect.DeepEqual(info.Config, config) {
		t.Fatalf("Create: %+v, %v", info, err)
	}
	if names, err := c.Connectors(ctx); err != nil || !reflect.DeepEqual(names, []string{"my src"}) {
		t.Errorf("Connectors: %v, %v", names, err)
	}
	if got, err := c.Describe(ctx, "my src"); err != nil || got.Config["topic"] != "lines" {
		t.Errorf("Describe: %+v, %v", got, err)
	}
	if st, err := c.Status(ctx, "my src"); err != nil || st.Connector.State != "RUNNING" || len(st.Tasks) != 1 {
		t.Errorf("Status: %+v, %v", st, err)
	}
	if topics, err := c.Topics(ctx, "my src"); err != nil || !reflect.DeepEqual(topics, []string{"lines"}) {
		t.Errorf("Topics: %v, %v", topics, err)
	}
	if ps, err := c.Plugins(ctx); err != nil || len(ps) != 1 || ps[0].Class != "io.example.FileSource" {
		t.Errorf("Plugins: %+v, %v", ps, err)
	}
	if v, err := c.Validate(ctx, "io.example.FileSource", map[string]string{}); err != nil || v.ErrorCount != 1 || len(v.Configs[0].Value.Errors) != 1 {
		t.Errorf("Validate: %+v, %v", v, err)
	}
	if err := c.Delete(ctx, "my src"); err != nil {
		t.Errorf("Delete: %v", err)
	}
	err = c.Delete(ctx, "my src")
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 404 || !strings.Contains(ce.Body, "Connector my src not found") || !IsNotFound(err) {
		t.Errorf("Delete of a deleted connector: %v", err)
	}
	if f.requests[0] != "POST /connectors" || f.requests[2] != "GET /connectors/my%20src" {
		t.Errorf("requests: %v", f.requests)
	}
}

// TestClientRetries: a 503 is retried (up to three attempts), a 409
// past the attempts is Connect's error, a 404 is not retried.
func TestClientRetries(t *testing.T) {
	f := newFakeConnect()
	c := newTestClient(t, f)
	ctx := context.Background()
	f.fail = 2
	if _, err := c.Connectors(ctx); err != nil {
		t.Fatalf("after two 503s: %v", err)
	}
	f.fail = 3
	_, err := c.Connectors(ctx)
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 503 || !strings.Contains(ce.Body, "rebalancing") {
		t.Errorf("after three 503s: %v", err)
	}
	before := len(f.requests)
	if _, err := c.Describe(ctx, "none"); !IsNotFound(err) || len(f.requests) != before+1 {
		t.Errorf("404: %v after %d requests", err, len(f.requests)-before)
	}
}

// TestClientUnreachable: a Connect that does not answer is an
// UnreachableError naming the URL; a bad URL is refused at New.
func TestClientUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, err := New(url, time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	_, err = c.Connectors(context.Background())
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "Connect to "+url+" failed: ") {
		t.Errorf("unreachable: %v", err)
	}
	for _, bad := range []string{"", "localhost:8083", "ftp://x", "http://"} {
		if _, err := New(bad, time.Second, ""); err == nil || !strings.Contains(err.Error(), "invalid URI") {
			t.Errorf("New(%q): %v", bad, err)
		}
	}
}

// TestClientSendsHeaders: the Authorization header and a JSON body.
func TestClientSendsHeaders(t *testing.T) {
	var auth, ctype string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, ctype = r.Header.Get("Authorization"), r.Header.Get("Content-Type")
		writeJSON(w, http.StatusCreated, ConnectorInfo{Name: "c"})
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/base", time.Second, "Basic dTpw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(context.Background(), "c", map[string]string{}); err != nil {
		t.Fatal(err)
	}
	if auth != "Basic dTpw" || ctype != "application/json" {
		t.Errorf("headers: Authorization %q, Content-Type %q", auth, ctype)
	}
}
