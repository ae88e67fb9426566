package connect

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// The client is tested against connecttest's fake Kafka Connect (there is
// no real Connect on this machine).
func newTestClient(t *testing.T) (*Client, *connecttest.Connect) {
	f := connecttest.New()
	t.Cleanup(f.Close)
	c, err := New(f.URL, 5*time.Second, "Basic dTpw")
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	return c, f
}

// TestClientLifecycle: create, list, describe, status, topics, plugins,
// validate and delete, each on its Connect endpoint.
func TestClientLifecycle(t *testing.T) {
	c, f := newTestClient(t)
	ctx := context.Background()
	config := map[string]string{"connector.class": "io.example.FileSource", "topic": "lines", "file": "/tmp/x", "name": "my src"}
	info, err := c.Create(ctx, "my src", config)
	// Connect answers a create before the worker starts the tasks.
	if err != nil || info.Name != "my src" || info.Type != "source" || !reflect.DeepEqual(info.Config, config) || len(info.Tasks) != 0 {
		t.Fatalf("Create: %+v, %v", info, err)
	}
	if names, err := c.Connectors(ctx); err != nil || !reflect.DeepEqual(names, []string{"my src"}) {
		t.Errorf("Connectors: %v, %v", names, err)
	}
	if got, err := c.Describe(ctx, "my src"); err != nil || got.Config["topic"] != "lines" || !reflect.DeepEqual(got.Tasks, []TaskID{{"my src", 0}}) {
		t.Errorf("Describe: %+v, %v", got, err)
	}
	if st, err := c.Status(ctx, "my src"); err != nil || st.Connector.State != "RUNNING" || len(st.Tasks) != 1 || st.Connector.WorkerID != "worker:8083" {
		t.Errorf("Status: %+v, %v", st, err)
	}
	if topics, err := c.Topics(ctx, "my src"); err != nil || !reflect.DeepEqual(topics, []string{"lines"}) {
		t.Errorf("Topics: %v, %v", topics, err)
	}
	if ps, err := c.Plugins(ctx); err != nil || len(ps) != 2 || ps[0].Class != "io.example.FileSource" || ps[0].Type != "source" {
		t.Errorf("Plugins: %+v, %v", ps, err)
	}
	if v, err := c.Validate(ctx, "io.example.FileSource", map[string]string{}); err != nil || v.ErrorCount != 1 || v.Configs[0].Value.Name != "file" || len(v.Configs[0].Value.Errors) != 1 {
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
	reqs := f.Requests()
	if reqs[0] != "POST /connectors" || reqs[2] != "GET /connectors/my%20src" {
		t.Errorf("requests: %v", reqs)
	}
	if a := f.Authorizations(); a[0] != "Basic dTpw" {
		t.Errorf("Authorization sent: %q", a[0])
	}
}

// TestClientRetries: Connect's 409 (a rebalancing worker) and 5xx are
// tried again, up to three attempts, as ksqlDB's client does; past them
// the last answer is the error. A 404 and a 401 are answered at once.
func TestClientRetries(t *testing.T) {
	c, f := newTestClient(t)
	ctx := context.Background()
	f.FailNext(2)
	if _, err := c.Connectors(ctx); err != nil {
		t.Fatalf("after two 409s: %v", err)
	}
	for _, status := range []int{409, 500, 503} {
		f.FailNextWith(3, status)
		before := len(f.Requests())
		_, err := c.Connectors(ctx)
		var ce *Error
		if !errors.As(err, &ce) || ce.Status != status || !strings.HasPrefix(ce.Body, fmt.Sprintf(`{"error_code":%d,"message":"`, status)) || len(f.Requests()) != before+3 {
			t.Errorf("after three %ds: %v in %d requests", status, err, len(f.Requests())-before)
		}
	}
	before := len(f.Requests())
	if _, err := c.Describe(ctx, "none"); !IsNotFound(err) || len(f.Requests()) != before+1 {
		t.Errorf("404: %v after %d requests", err, len(f.Requests())-before)
	}
	f.RequireLogin("fred", "pass")
	before = len(f.Requests())
	_, err := c.Connectors(ctx)
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 401 || ce.Body != "User cannot access the resource." || len(f.Requests()) != before+1 {
		t.Errorf("401: %v after %d requests", err, len(f.Requests())-before)
	}
}

// TestClientResponseShapes: the answers ksqlDB's DefaultConnectClient
// handles, as its tests give them, each read as it reads them: a body
// that is not JSON in an error, DELETE's 200 with a body as well as its
// 204, a status with traces, a connector of no known type, two topics.
func TestClientResponseShapes(t *testing.T) {
	answers := map[string]struct {
		status int
		body   string
	}{
		"POST /connectors":                         {500, "Oh no!"},
		"PUT /connector-plugins/x/config/validate": {500, "Oh no!"},
		"DELETE /connectors/foo":                   {200, `{"error":null}`},
		"GET /connectors/foo":                      {200, `{"name":"foo","config":{"key":"value"},"tasks":[{"connector":"foo","task":1}],"type":null}`},
		"GET /connectors/foo/status": {200, `{"name":"foo","connector":{"state":"state","worker_id":"worker","trace":"msg"},` +
			`"tasks":[{"id":0,"state":"taskState","worker_id":"worker","trace":"taskMsg"}],"type":"source"}`},
		"GET /connectors/foo/topics": {200, `{"foo":{"topics":["topicA","topicB"]}}`},
		"GET /connector-plugins":     {200, `[{"class":"io.confluent.connect.replicator.ReplicatorSourceConnector","type":"source","version":"1.0"}]`},
	}
	var tries int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tries++
		a, ok := answers[r.Method+" "+r.URL.Path]
		if !ok {
			a.status, a.body = 404, `{"error_code":404,"message":"HTTP 404 Not Found"}`
		}
		w.WriteHeader(a.status)
		_, _ = w.Write([]byte(a.body))
	}))
	defer srv.Close()
	c, err := New(srv.URL, time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	c.backoff = time.Millisecond
	ctx := context.Background()
	_, err = c.Create(ctx, "foo", map[string]string{})
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 500 || ce.Body != "Oh no!" || tries != 3 {
		t.Errorf("create answered 500 Oh no!: %v after %d tries", err, tries)
	}
	if _, err := c.Validate(ctx, "x", map[string]string{}); !errors.As(err, &ce) || ce.Body != "Oh no!" {
		t.Errorf("validate answered 500 Oh no!: %v", err)
	}
	if err := c.Delete(ctx, "foo"); err != nil {
		t.Errorf("delete answered 200 with a body: %v", err)
	}
	if info, err := c.Describe(ctx, "foo"); err != nil || info.Type != "" || info.Tasks[0] != (TaskID{"foo", 1}) {
		t.Errorf("describe with a null type: %+v, %v", info, err)
	}
	st, err := c.Status(ctx, "foo")
	if err != nil || st.Connector.Trace != "msg" || st.Tasks[0].Trace != "taskMsg" || st.Tasks[0].State != "taskState" {
		t.Errorf("status: %+v, %v", st, err)
	}
	if topics, err := c.Topics(ctx, "foo"); err != nil || !reflect.DeepEqual(topics, []string{"topicA", "topicB"}) {
		t.Errorf("topics: %v, %v", topics, err)
	}
	if ps, err := c.Plugins(ctx); err != nil || len(ps) != 1 || ps[0].Class != "io.confluent.connect.replicator.ReplicatorSourceConnector" {
		t.Errorf("plugins: %+v, %v", ps, err)
	}
	if _, err := c.Topics(ctx, "bar"); !IsNotFound(err) {
		t.Errorf("topics of an unknown connector: %v", err)
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

// TestClientBasePath: a Connect URL with a path prefixes every request.
func TestClientBasePath(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.URL.EscapedPath() + " " + r.Header.Get("Content-Type")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"name":"a/b"}`))
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/base", time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(context.Background(), "a/b", map[string]string{}); err != nil {
		t.Fatal(err)
	}
	if got != "POST /base/connectors application/json" {
		t.Errorf("request: %q", got)
	}
	if _, err := c.Describe(context.Background(), "a/b"); err == nil || !strings.Contains(got, "/base/connectors/a%2Fb") {
		t.Errorf("describe a/b: %v, request %q", err, got)
	}
}
