// Package connecttest is a fake Kafka Connect cluster: Connect's REST
// API (the endpoints ksqlDB's connector statements use, and the others of
// the connectors resource), kept in memory behind an httptest.Server.
// There is no Kafka Connect on the machines sqlstream is tested on, so
// this fake, written from Connect's REST API reference and its resources'
// answers, is the Connect the client, the engine and the binary are tested
// against:
//
//   - every error is Connect's body {"error_code": status, "message": …}
//     (ConnectExceptionMapper), but a refused login, which is Connect's
//     basic-auth filter's plain "User cannot access the resource.";
//   - 404 "Connector X not found", 409 "Connector X already exists", 409
//     while a worker rebalances (FailNext), 400 for a config that does not
//     validate ("Connector configuration is invalid and contains the
//     following N error(s): …"), 415 without a JSON Content-Type, 405 for
//     a method a path does not take;
//   - POST /connectors answers 201 with no tasks yet (the worker starts
//     them after); GET /connectors takes ?expand=status and ?expand=info;
//     the validation endpoint answers ConfigInfos with each config's
//     definition and value.
//
// It imports no sqlstream package.
package connecttest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
)

// Connect is the fake cluster. A connector is RUNNING with one RUNNING
// task unless SetState says otherwise; its topics are its config's
// "topic" or "topics".
type Connect struct {
	*httptest.Server
	mu         sync.Mutex
	connectors map[string]*connector
	fail       int // requests left to refuse with failStatus
	failStatus int
	noTopics   bool   // answer /topics 404, as a Connect before 2.5
	login      string // "user:password" every request must carry ("" for none)
	requests   []string
	auth       []string
}

type connector struct {
	name      string
	config    map[string]string
	state     string
	taskState []string // one per task
	trace     string
}

// Plugins are the connector plugins the fake lists and validates: a
// source whose config needs "file", and a sink.
var plugins = []map[string]string{
	{"class": "io.example.FileSource", "type": "source", "version": "1.0"},
	{"class": "io.example.FileSink", "type": "sink", "version": "1.0"},
}

// New starts a fake Connect cluster; Close stops it.
func New() *Connect {
	c := newConnect()
	c.Server = httptest.NewServer(c)
	return c
}

// NewTLS starts a fake Connect cluster behind https (httptest's
// certificate, for 127.0.0.1 and example.com); Certificate is its CA.
func NewTLS() *Connect {
	c := newConnect()
	c.Server = httptest.NewTLSServer(c)
	return c
}

func newConnect() *Connect {
	return &Connect{connectors: map[string]*connector{}}
}

// RequireLogin makes every request need HTTP basic credentials user and
// password (Connect's BasicAuthSecurityRestExtension).
func (c *Connect) RequireLogin(user, password string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.login = user + ":" + password
}

// FailNext makes the next n requests answer 409 as a rebalancing worker
// does.
func (c *Connect) FailNext(n int) { c.FailNextWith(n, http.StatusConflict) }

// FailNextWith makes the next n requests answer status with Connect's
// body for it: 409 a rebalance, 500 a request that timed out in the
// herder, 503 a worker still starting.
func (c *Connect) FailNextWith(n, status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail, c.failStatus = n, status
}

// WithoutTopics makes /connectors/{name}/topics unknown, as in a Connect
// older than 2.5.
func (c *Connect) WithoutTopics() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noTopics = true
}

// SetState sets a connector's state and its tasks' (RUNNING, PAUSED,
// FAILED, UNASSIGNED); a FAILED one carries trace.
func (c *Connect) SetState(name, state, trace string, tasks ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if conn, ok := c.connectors[name]; ok {
		conn.state, conn.trace, conn.taskState = state, trace, tasks
	}
}

// Requests returns "METHOD path" of every request so far (the query
// after a ? when there is one).
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

// failures are Connect's answers to a request it cannot serve now.
var failures = map[int]string{
	http.StatusConflict:            "Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)",
	http.StatusInternalServerError: "Request timed out",
	http.StatusServiceUnavailable:  "Request cannot be completed because the worker is still starting up",
}

func (c *Connect) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	req := r.Method + " " + r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		req += "?" + r.URL.RawQuery
	}
	c.requests = append(c.requests, req)
	c.auth = append(c.auth, r.Header.Get("Authorization"))
	switch {
	case c.login != "" && !c.loggedIn(r):
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("User cannot access the resource."))
	case c.fail > 0:
		c.fail--
		writeError(w, c.failStatus, failures[c.failStatus])
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json"):
		writeError(w, http.StatusUnsupportedMediaType, "HTTP 415 Unsupported Media Type")
	default:
		c.route(w, r)
	}
}

// loggedIn checks the request's basic credentials.
func (c *Connect) loggedIn(r *http.Request) bool {
	scheme, enc, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return false
	}
	dec, err := base64.StdEncoding.DecodeString(enc)
	return err == nil && string(dec) == c.login
}

func (c *Connect) route(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/connectors":
		c.connectorsRoot(w, r)
	case r.URL.Path == "/connector-plugins":
		only(w, r, http.MethodGet, func() { writeJSON(w, http.StatusOK, plugins) })
	case len(parts) == 4 && parts[0] == "connector-plugins" && parts[2] == "config" && parts[3] == "validate":
		only(w, r, http.MethodPut, func() { validate(w, r, parts[1]) })
	case len(parts) >= 2 && parts[0] == "connectors":
		c.connector(w, r, parts[1], parts[2:])
	default:
		writeError(w, http.StatusNotFound, "HTTP 404 Not Found")
	}
}

// only runs serve when the request has method, and answers 405 when not.
func only(w http.ResponseWriter, r *http.Request, method string, serve func()) {
	if r.Method != method {
		writeError(w, http.StatusMethodNotAllowed, "HTTP 405 Method Not Allowed")
		return
	}
	serve()
}

func (c *Connect) connectorsRoot(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		c.list(w, r)
	case http.MethodPost:
		c.create(w, r)
	default:
		writeError(w, http.StatusMethodNotAllowed, "HTTP 405 Method Not Allowed")
	}
}

// list answers GET /connectors: the names, or with ?expand=status and/or
// ?expand=info a map of each connector's.
func (c *Connect) list(w http.ResponseWriter, r *http.Request) {
	expand := r.URL.Query()["expand"]
	if len(expand) == 0 {
		writeJSON(w, http.StatusOK, c.names())
		return
	}
	out := map[string]map[string]any{}
	for _, n := range c.names() {
		entry := map[string]any{}
		for _, e := range expand {
			switch e {
			case "status":
				entry["status"] = c.connectors[n].status()
			case "info":
				entry["info"] = c.connectors[n].info()
			}
		}
		out[n] = entry
	}
	writeJSON(w, http.StatusOK, out)
}

func (c *Connect) names() []string {
	out := []string{}
	for n := range c.connectors {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// create answers POST /connectors {name, config}: 201 with the connector
// and no tasks yet, after its config validated.
func (c *Connect) create(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name   string            `json:"name"`
		Config map[string]string `json:"config"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "Unrecognized request body: "+err.Error())
		return
	}
	switch {
	case strings.TrimSpace(req.Name) == "":
		writeError(w, http.StatusBadRequest, "Connector name cannot be empty")
		return
	case strings.Contains(req.Name, "/"):
		writeError(w, http.StatusBadRequest, "connector name should not contain '/'")
		return
	}
	if _, ok := c.connectors[req.Name]; ok {
		writeError(w, http.StatusConflict, "Connector "+req.Name+" already exists")
		return
	}
	if msg := invalid(req.Config); msg != "" {
		writeError(w, http.StatusBadRequest, msg)
		return
	}
	conn := &connector{name: req.Name, config: req.Config, state: "RUNNING", taskState: []string{"RUNNING"}}
	c.connectors[req.Name] = conn
	info := conn.info()
	info["tasks"] = []any{}
	writeJSON(w, http.StatusCreated, info)
}

// invalid is Connect's refusal of a config that does not validate, ""
// for a valid one.
func invalid(config map[string]string) string {
	class := config["connector.class"]
	if class == "" {
		return "Connector config " + javaMap(config) + " contains no connector type"
	}
	if pluginType(class) == "" {
		return "Failed to find any class that implements Connector and which name matches " + class
	}
	errs := configErrors(class, config)
	if len(errs) == 0 {
		return ""
	}
	return fmt.Sprintf("Connector configuration is invalid and contains the following %d error(s):\n%s\n"+
		"You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`",
		len(errs), strings.Join(errs, "\n"))
}

func pluginType(class string) string {
	for _, p := range plugins {
		if p["class"] == class || strings.HasSuffix(p["class"], "."+class) {
			return p["type"]
		}
	}
	return ""
}

// configErrors: a FileSource needs "file".
func configErrors(class string, config map[string]string) []string {
	if strings.HasSuffix(class, "FileSource") && config["file"] == "" {
		return []string{`Missing required configuration "file" which has no default value.`}
	}
	return nil
}

// validate answers PUT /connector-plugins/{class}/config/validate with
// ConfigInfos: every config of the body and the plugin's "file", each
// with its definition and value (errors included).
func validate(w http.ResponseWriter, r *http.Request, class string) {
	var config map[string]string
	if err := json.NewDecoder(r.Body).Decode(&config); err != nil {
		writeError(w, http.StatusBadRequest, "Unrecognized request body: "+err.Error())
		return
	}
	if inc, ok := config["connector.class"]; ok && !strings.HasSuffix(inc, class) && !strings.HasSuffix(class, inc) {
		writeError(w, http.StatusBadRequest, "Included connector type "+inc+" does not match request type "+class)
		return
	}
	if pluginType(class) == "" {
		writeError(w, http.StatusInternalServerError, "Failed to find any class that implements Connector and which name matches "+class)
		return
	}
	errs := configErrors(class, config)
	names := []string{"file"}
	for k := range config {
		if k != "file" {
			names = append(names, k)
		}
	}
	sort.Strings(names[1:])
	configs := make([]any, 0, len(names))
	for _, n := range names {
		var value any
		if v, ok := config[n]; ok {
			value = v
		}
		verrs := []string{}
		if n == "file" {
			verrs = append(verrs, errs...)
		}
		configs = append(configs, map[string]any{
			"definition": map[string]any{"name": n, "type": "STRING", "required": n == "file", "default_value": nil,
				"importance": "HIGH", "documentation": "", "group": "Common", "width": "MEDIUM", "display_name": n,
				"dependents": []string{}, "order": 0},
			"value": map[string]any{"name": n, "value": value, "recommended_values": []string{}, "errors": verrs, "visible": true}})
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": class, "error_count": len(errs), "groups": []string{"Common"}, "configs": configs})
}

// connector serves /connectors/{name}[/…].
func (c *Connect) connector(w http.ResponseWriter, r *http.Request, name string, rest []string) {
	conn, ok := c.connectors[name]
	if !ok {
		writeError(w, http.StatusNotFound, "Connector "+name+" not found")
		return
	}
	sub := strings.Join(rest, "/")
	switch {
	case sub == "" && r.Method == http.MethodDelete:
		delete(c.connectors, name)
		w.WriteHeader(http.StatusNoContent)
	case sub == "":
		only(w, r, http.MethodGet, func() { writeJSON(w, http.StatusOK, conn.info()) })
	case sub == "config":
		only(w, r, http.MethodGet, func() { writeJSON(w, http.StatusOK, conn.config) })
	case sub == "status":
		only(w, r, http.MethodGet, func() { writeJSON(w, http.StatusOK, conn.status()) })
	case sub == "topics" && !c.noTopics:
		only(w, r, http.MethodGet, func() {
			writeJSON(w, http.StatusOK, map[string]any{name: map[string]any{"topics": topicsOf(conn)}})
		})
	default:
		writeError(w, http.StatusNotFound, "HTTP 404 Not Found")
	}
}

// info is Connect's ConnectorInfo.
func (c *connector) info() map[string]any {
	tasks := make([]any, len(c.taskState))
	for i := range c.taskState {
		tasks[i] = map[string]any{"connector": c.name, "task": i}
	}
	return map[string]any{"name": c.name, "config": c.config, "tasks": tasks, "type": pluginType(c.config["connector.class"])}
}

// status is Connect's ConnectorStateInfo.
func (c *connector) status() map[string]any {
	state := map[string]any{"state": c.state, "worker_id": "worker:8083"}
	if c.trace != "" {
		state["trace"] = c.trace
	}
	tasks := make([]any, len(c.taskState))
	for i, s := range c.taskState {
		t := map[string]any{"id": i, "state": s, "worker_id": "worker:8083"}
		if s == "FAILED" && c.trace != "" {
			t["trace"] = c.trace
		}
		tasks[i] = t
	}
	return map[string]any{"name": c.name, "connector": state, "tasks": tasks, "type": pluginType(c.config["connector.class"])}
}

func topicsOf(c *connector) []string {
	for _, k := range []string{"topic", "topics"} {
		if v := c.config[k]; v != "" {
			return strings.Split(v, ",")
		}
	}
	return []string{}
}

// javaMap prints a map as Java's Map.toString ({k=v, …}), keys sorted.
func javaMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error_code": status, "message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
