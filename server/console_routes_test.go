package server

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
)

// fakeConsole answers its paths with their name.
type fakeConsole struct{}

func (fakeConsole) Paths() []string { return []string{"/", "/console/app.js"} }

func (fakeConsole) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.WriteString(w, "console "+r.URL.Path)
}

// browserAccept is what Chromium sends when it navigates.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

func serve(s *Server, method, path, user, pass string) *httptest.ResponseRecorder {
	return serveAccept(s, method, path, user, pass, browserAccept)
}

func serveAccept(s *Server, method, path, user, pass, accept string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	req.Host = "127.0.0.1:8088"
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

// TestConsoleRoutes: without a console GET / still redirects to /info;
// with one, / (for a browser) and its assets are the console's, behind
// BASIC authentication like the API, while API clients asking for / are
// still redirected to /info; the registry is served read-only under
// /schema-registry/.
func TestConsoleRoutes(t *testing.T) {
	if rec := serve(New(newFakeEngine()), "GET", "/", "", ""); rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != "/info" {
		t.Errorf("no console: GET / answered %d %q", rec.Code, rec.Header().Get("Location"))
	}
	withConsole := New(newFakeEngine(), WithConsole(fakeConsole{}))
	for _, accept := range []string{"", "*/*", "application/json", "application/vnd.ksql.v1+json", "text/*"} {
		if rec := serveAccept(withConsole, "GET", "/", "", "", accept); rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != "/info" {
			t.Errorf("Accept %q: GET / answered %d %q, want ksqlDB's redirect to /info", accept, rec.Code, rec.Header().Get("Location"))
		}
	}
	if rec := serveAccept(withConsole, "GET", "/", "", "", "text/html"); rec.Code != http.StatusOK || rec.Body.String() != "console /" {
		t.Errorf("Accept text/html: GET / answered %d %q", rec.Code, rec.Body)
	}
	users, err := ParseUsers(strings.NewReader("alice: wonderland,admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	registry := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "registry "+r.Method+" "+r.URL.Path)
	})
	s := New(newFakeEngine(), WithConsole(fakeConsole{}), WithSchemaRegistry(registry), WithBasicAuth("KsqlServer-Props", []string{"*"}, users))
	for _, tc := range []struct {
		method, path, user string
		status             int
		body               string
	}{
		{"GET", "/", "", http.StatusUnauthorized, ""},
		{"GET", "/", "alice", http.StatusOK, "console /"},
		{"GET", "/console/app.js", "alice", http.StatusOK, "console /console/app.js"},
		{"HEAD", "/", "alice", http.StatusOK, ""},
		{"GET", "/console/other.js", "alice", http.StatusNotFound, "Not Found"},
		{"GET", "/schema-registry/subjects", "", http.StatusUnauthorized, ""},
		{"GET", "/schema-registry/subjects", "alice", http.StatusOK, "registry GET /subjects"},
		{"POST", "/schema-registry/subjects/x/versions", "alice", http.StatusMethodNotAllowed, "Method Not Allowed"},
		{"DELETE", "/schema-registry/subjects/x", "alice", http.StatusMethodNotAllowed, "Method Not Allowed"},
	} {
		pass := ""
		if tc.user != "" {
			pass = "wonderland"
		}
		rec := serve(s, tc.method, tc.path, tc.user, pass)
		if rec.Code != tc.status || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("%s %s as %q: %d %q, want %d %q", tc.method, tc.path, tc.user, rec.Code, rec.Body, tc.status, tc.body)
		}
		if tc.status == http.StatusUnauthorized && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("%s %s: 401 without a challenge, so a browser would not ask for credentials", tc.method, tc.path)
		}
	}
}

// tasksEngine is the fake engine with a task list.
type tasksEngine struct {
	*fakeEngine
	tasks []api.QueryTasks
}

func (e tasksEngine) Tasks() []api.QueryTasks { return e.tasks }

// TestTasksEndpoint: GET /tasks answers the engine's task list as JSON
// ([] for none), with each store partition's size and the query's
// figures, and 404 when the engine keeps none.
func TestTasksEndpoint(t *testing.T) {
	if rec := serve(New(newFakeEngine()), "GET", "/tasks", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("an engine without tasks: %d", rec.Code)
	}
	if rec := serve(New(tasksEngine{fakeEngine: newFakeEngine()}), "GET", "/tasks", "", ""); rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != "[]" {
		t.Errorf("no queries: %d %s", rec.Code, rec.Body)
	}
	lag := int64(2)
	e := tasksEngine{fakeEngine: newFakeEngine(), tasks: []api.QueryTasks{{QueryID: "CTAS_T_1", Tasks: []api.TaskInfo{
		{TaskID: "0_0", Role: "ACTIVE", State: "RUNNING", Stores: []api.StoreLagInfo{{Store: "s", Partition: 0}}, ConsumerLag: &lag,
			Inputs: []api.InputLagInfo{{Topic: "t", Position: 4, HighWatermark: 7, LastStableOffset: 6, Lag: 2}}},
		{TaskID: "0_1", Role: "STANDBY", Stores: []api.StoreLagInfo{{Store: "s", Partition: 1, Position: 3, End: 5, Lag: 2, Keys: 4, Bytes: 90}}},
	}, Processed: 5, Logged: 1, Nodes: []api.NodeRecords{{SubTopology: 0, Node: "Source-T", Records: 5}, {SubTopology: 0, Node: "WhereFilter", Records: 2, SinceMs: 1000}},
		GlobalStores: []api.GlobalStoreInfo{{Store: "G-GlobalStore", Topic: "g", RecordsLoaded: 3, Rows: 3, Lag: 0,
			Partitions: []api.InputLagInfo{{Topic: "g", Position: 3, HighWatermark: -1, LastStableOffset: 3}}}},
		UpgradedAtMs: 1000}}}
	rec := serve(New(e), "GET", "/tasks", "", "")
	want := `[{"queryId":"CTAS_T_1","tasks":[{"taskId":"0_0","role":"ACTIVE","state":"RUNNING","stores":[{"store":"s","partition":0,"position":0,"end":0,"lag":0,"keys":0,"bytes":0}],` +
		`"consumerLag":2,"inputs":[{"topic":"t","partition":0,"position":4,"highWatermark":7,"lastStableOffset":6,"lag":2}]},` +
		`{"taskId":"0_1","role":"STANDBY","stores":[{"store":"s","partition":1,"position":3,"end":5,"lag":2,"keys":4,"bytes":90}]}],` +
		`"recordsProcessed":5,"processingLogEntries":1,"lateRecords":0,` +
		`"nodes":[{"subTopology":0,"node":"Source-T","records":5},{"subTopology":0,"node":"WhereFilter","records":2,"sinceMs":1000}],` +
		`"globalStores":[{"store":"G-GlobalStore","topic":"g","recordsLoaded":3,"rows":3,"bytes":0,"lag":0,` +
		`"partitions":[{"topic":"g","partition":0,"position":3,"highWatermark":-1,"lastStableOffset":3,"lag":0}]}],"upgradedAtMs":1000}]`
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
		t.Errorf("GET /tasks: %d\n%s\nwant\n%s", rec.Code, rec.Body, want)
	}
}

type clusterTasksEngine struct {
	*fakeEngine
	auth string // the Authorization ClusterTasks was called with
}

func (e *clusterTasksEngine) ClusterTasks(ctx context.Context) api.ClusterTasks {
	e.auth = api.AuthorizationFrom(ctx)
	return api.ClusterTasks{Hosts: []api.HostTasks{{Host: "a:1", Self: true, Queries: []api.QueryTasks{}},
		{Host: "b:2", Error: "not alive", Queries: []api.QueryTasks{}}}}
}

// TestClusterTasksEndpoint: GET /clusterTasks answers the engine's
// hosts, a host that did not answer with its error, and hands the engine
// the request's Authorization to pass on to the peers; 404 without.
func TestClusterTasksEndpoint(t *testing.T) {
	if rec := serve(New(newFakeEngine()), "GET", "/clusterTasks", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("an engine without cluster tasks: %d", rec.Code)
	}
	users, err := ParseUsers(strings.NewReader("alice: wonderland,admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := &clusterTasksEngine{fakeEngine: newFakeEngine()}
	s := New(e, WithBasicAuth("KsqlServer-Props", []string{"*"}, users))
	if rec := serve(s, "GET", "/clusterTasks", "", ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("without credentials: %d", rec.Code)
	}
	rec := serveAccept(s, "GET", "/clusterTasks", "alice", "wonderland", "application/json")
	want := `{"hosts":[{"host":"a:1","self":true,"queries":[]},{"host":"b:2","error":"not alive","queries":[]}]}`
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
		t.Errorf("GET /clusterTasks: %d\n%s\nwant\n%s", rec.Code, rec.Body, want)
	}
	if e.auth != "Basic YWxpY2U6d29uZGVybGFuZA==" {
		t.Errorf("the engine got Authorization %q", e.auth)
	}
}

type clusterMetricsEngine struct {
	*fakeEngine
	auth string // the Authorization ClusterMetrics was called with
}

func (e *clusterMetricsEngine) ClusterMetrics(ctx context.Context) api.ClusterMetrics {
	e.auth = api.AuthorizationFrom(ctx)
	return api.ClusterMetrics{Hosts: []api.HostMetrics{{Host: "a:1", Self: true, Metrics: "sqlstream_queries{state=\"RUNNING\"} 1\n"},
		{Host: "b:2", Error: "not alive"}}}
}

// TestClusterMetricsEndpoint: GET /clusterMetrics answers the engine's
// hosts with their metrics text, a host that did not answer with its
// error, behind the same authentication as the API, and hands the
// engine the request's Authorization to pass on to the peers; 404
// without.
func TestClusterMetricsEndpoint(t *testing.T) {
	if rec := serve(New(newFakeEngine()), "GET", "/clusterMetrics", "", ""); rec.Code != http.StatusNotFound {
		t.Errorf("an engine without cluster metrics: %d", rec.Code)
	}
	users, err := ParseUsers(strings.NewReader("alice: wonderland,admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := &clusterMetricsEngine{fakeEngine: newFakeEngine()}
	s := New(e, WithBasicAuth("KsqlServer-Props", []string{"*"}, users))
	if rec := serve(s, "GET", "/clusterMetrics", "", ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("without credentials: %d", rec.Code)
	}
	rec := serveAccept(s, "GET", "/clusterMetrics", "alice", "wonderland", "application/json")
	want := `{"hosts":[{"host":"a:1","self":true,"metrics":"sqlstream_queries{state=\"RUNNING\"} 1\n"},{"host":"b:2","error":"not alive","metrics":""}]}`
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
		t.Errorf("GET /clusterMetrics: %d\n%s\nwant\n%s", rec.Code, rec.Body, want)
	}
	if e.auth != "Basic YWxpY2U6d29uZGVybGFuZA==" {
		t.Errorf("the engine got Authorization %q", e.auth)
	}
}
