package connect

import (
	"context"
	"errors"
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
	if err != nil || info.Name != "my src" || info.Type != "source" || !reflect.DeepEqual(info.Config, config) || len(info.Tasks) != 1 {
		t.Fatalf("Create: %+v, %v", info, err)
	}
	if names, err := c.Connectors(ctx); err != nil || !reflect.DeepEqual(names, []string{"my src"}) {
		t.Errorf("Connectors: %v, %v", names, err)
	}
	if got, err := c.Describe(ctx, "my src"); err != nil || got.Config["topic"] != "lines" {
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
	reqs := f.Requests()
	if reqs[0] != "POST /connectors" || reqs[2] != "GET /connectors/my%20src" {
		t.Errorf("requests: %v", reqs)
	}
	if a := f.Authorizations(); a[0] != "Basic dTpw" {
		t.Errorf("Authorization sent: %q", a[0])
	}
}

// TestClientRetries: a 503 is retried (up to three attempts), past them
// it is Connect's error; a 404 is not retried.
func TestClientRetries(t *testing.T) {
	c, f := newTestClient(t)
	ctx := context.Background()
	f.FailNext(2)
	if _, err := c.Connectors(ctx); err != nil {
		t.Fatalf("after two 503s: %v", err)
	}
	f.FailNext(3)
	_, err := c.Connectors(ctx)
	var ce *Error
	if !errors.As(err, &ce) || ce.Status != 503 || !strings.Contains(ce.Body, "rebalancing") {
		t.Errorf("after three 503s: %v", err)
	}
	before := len(f.Requests())
	if _, err := c.Describe(ctx, "none"); !IsNotFound(err) || len(f.Requests()) != before+1 {
		t.Errorf("404: %v after %d requests", err, len(f.Requests())-before)
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
