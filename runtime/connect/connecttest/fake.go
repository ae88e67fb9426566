// Package connecttest is a fake Kafka Connect cluster: the few REST
// endpoints sqlstream's connector statements use (runtime/connect),
// kept in memory behind an httptest.Server. There is no Kafka Connect on
// the machines sqlstream is tested on; this fake, written from Connect's
// REST API reference, is the Connect the client, the engine and the
// binary are tested against. It imports no sqlstream package.
package connecttest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
)

// Connect is the fake cluster. Every connector is RUNNING with one
// RUNNING task; its topics are its config's "topic" or "topics".
type Connect struct {
	*httptest.Server
	mu         sync.Mutex
	connectors map[string]connector
	fail       int
	requests   []string
	auth       []string
}

type connector struct {
	Name   string            `json:"name"`
	Config map[string]string `json:"config"`
	Tasks  []map[string]any  `json:"tasks"`
	Type   string            `json:"type"`
}

// Plugins are the connector plugins the fake lists and validates: a
// source whose config needs "file", and a sink.
var plugins = []map[string]string{
	{"class": "io.example.FileSource", "type": "source", "version": "1.0"},
	{"class": "io.example.FileSink", "type": "sink", "version": "1.0"},
}

// New starts a fake Connect cluster; Close stops it.
func New() *Connect {
	c := &Connect{connectors: map[string]connector{}}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	return c
}

// FailNext makes the next n requests answer 503 (a rebalancing worker).
func (c *Connect) FailNext(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail = n
}

// Requests returns "METHOD path" of every request so far.
func (c *Connect) Requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.requests...)
}

// Authorizations returns the Authorization header of every request.
func (c *Connect) Authorizations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.auth...)
}

func (c *Connect) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, r.Method+" "+r.URL.EscapedPath())
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	if c.fail > 0 {
		c.fail--
		writeError(w, http.StatusServiceUnavailable, "worker is rebalancing")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/connectors" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, c.names())
	case r.URL.Path == "/connectors" && r.Method == http.MethodPost:
		c.create(w, r)
	case r.URL.Path == "/connector-plugins" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, plugins)
	case len(parts) == 4 && parts[0] == "connector-plugins" && parts[2] == "config" && r.Method == http.MethodPut:
		validate(w, r, parts[1])
	case len(parts) >= 2 && parts[0] == "connectors":
		c.connector(w, r, parts[1], parts[2:])
	default:
		writeError(w, http.StatusNotFound, "HTTP 404 Not Found")
	}
}

func (c *Connect) names() []string {
	out := []string{}
	for n := range c.connectors {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (c *Connect) create(w http.ResponseWriter, r *http.Request) {
	var req connector
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if _, ok := c.connectors[req.Name]; ok {
		writeError(w, http.StatusConflict, "Connector "+req.Name+" already exists")
		return
	}
	req.Type = "source"
	if strings.HasSuffix(req.Config["connector.class"], "Sink") {
		req.Type = "sink"
	}
	req.Tasks = []map[string]any{{"connector": req.Name, "task": 0}}
	c.connectors[req.Name] = req
	writeJSON(w, http.StatusCreated, req)
}

// validate answers a config validation: an unknown plugin is Connect's
// 500, a FileSource config without "file" has one error.
func validate(w http.ResponseWriter, r *http.Request, class string) {
	known := false
	for _, p := range plugins {
		known = known || p["class"] == class
	}
	if !known {
		writeError(w, http.StatusInternalServerError, "Failed to find any class that implements Connector and which name matches "+class)
		return
	}
	var config map[string]string
	_ = json.NewDecoder(r.Body).Decode(&config)
	errs := []string{}
	if class == "io.example.FileSource" && config["file"] == "" {
		errs = append(errs, `Missing required configuration "file" which has no default value.`)
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": class, "error_count": len(errs), "groups": []string{},
		"configs": []any{map[string]any{"value": map[string]any{"name": "file", "errors": errs}}}})
}

func (c *Connect) connector(w http.ResponseWriter, r *http.Request, name string, rest []string) {
	conn, ok := c.connectors[name]
	if !ok {
		writeError(w, http.StatusNotFound, "Connector "+name+" not found")
		return
	}
	switch {
	case len(rest) == 0 && r.Method == http.MethodDelete:
		delete(c.connectors, name)
		w.WriteHeader(http.StatusNoContent)
	case len(rest) == 0:
		writeJSON(w, http.StatusOK, conn)
	case rest[0] == "status":
		writeJSON(w, http.StatusOK, map[string]any{"name": name, "type": conn.Type,
			"connector": map[string]any{"state": "RUNNING", "worker_id": "worker:8083"},
			"tasks":     []any{map[string]any{"id": 0, "state": "RUNNING", "worker_id": "worker:8083"}}})
	case rest[0] == "topics":
		writeJSON(w, http.StatusOK, map[string]any{name: map[string]any{"topics": topicsOf(conn)}})
	default:
		writeError(w, http.StatusNotFound, "HTTP 404 Not Found")
	}
}

func topicsOf(c connector) []string {
	for _, k := range []string{"topic", "topics"} {
		if v := c.Config[k]; v != "" {
			return strings.Split(v, ",")
		}
	}
	return []string{}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error_code": status, "message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
