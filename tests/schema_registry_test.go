package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// registryURL is the embedded schema registry's URL from n's ready line.
func registryURL(t *testing.T, n *node) string {
	t.Helper()
	all := regexp.MustCompile(`msg="sqlstream ready" .* schema_registry=(http\S+)`).FindAllStringSubmatch(n.Logs(), -1)
	if len(all) == 0 {
		t.Fatalf("no schema registry in the ready line:\n%s", n.Logs())
	}
	return all[len(all)-1][1] // the latest start's
}

func registryClient(t *testing.T, url string) *sr.Client {
	t.Helper()
	cl, err := sr.NewClient(sr.URLs(url))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

const (
	srAvro  = `{"type":"record","name":"KsqlDataSourceSchema","namespace":"io.confluent.ksql.avro_schemas","fields":[{"name":"V","type":["null","string"],"default":null}]}`
	srProto = "syntax = \"proto3\";\n\nmessage ConnectDefault1 {\n  string V = 1;\n}\n"
	srJSON  = `{"type":"object","properties":{"V":{"connect.index":0,"oneOf":[{"type":"null"},{"type":"string"}]}}}`
)

// plainHTTP sends body with no Content-Type and decodes the JSON answer.
func plainHTTP(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

// TestEmbeddedSchemaRegistry: `sqlstream server` with its embedded broker
// serves a Confluent schema registry; franz-go's sr.Client and a plain
// HTTP client with no Content-Type register and read schemas of the three
// types; after a restart (a new port) every id and version is the same.
func TestEmbeddedSchemaRegistry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := startNode(t)
	cl := registryClient(t, registryURL(t, n))
	ids := map[string]int{}
	for subject, s := range map[string]sr.Schema{
		"a-value": {Schema: srAvro},
		"p-value": {Schema: srProto, Type: sr.TypeProtobuf},
		"j-value": {Schema: srJSON, Type: sr.TypeJSON},
	} {
		got, err := cl.CreateSchema(ctx, subject, s)
		if err != nil {
			t.Fatalf("register %s: %v", subject, err)
		}
		ids[subject] = got.ID
	}
	status, body := plainHTTP(t, http.MethodPost, registryURL(t, n)+"/subjects/plain-value/versions",
		`{"schema":"\"string\""}`)
	if status != http.StatusOK || body["id"] == nil {
		t.Fatalf("register with no Content-Type: %d %v", status, body)
	}
	ids["plain-value"] = int(body["id"].(float64))
	if _, err := cl.CreateSchema(ctx, "a-value", sr.Schema{Schema: `"int"`}); err == nil || !strings.Contains(err.Error(), "BACKWARD") {
		t.Fatalf("an incompatible second version: %v", err)
	}

	n.restart()
	cl = registryClient(t, registryURL(t, n))
	for subject, id := range ids {
		got, err := cl.SchemaByVersion(ctx, subject, -1)
		if err != nil || got.ID != id || got.Version != 1 {
			t.Errorf("%s after restart: %+v %v, want id %d version 1", subject, got, err, id)
		}
	}
	if s, err := cl.SchemaByID(ctx, ids["p-value"]); err != nil || s.Schema != srProto || s.Type != sr.TypeProtobuf {
		t.Errorf("protobuf schema by id after restart: %+v %v", s, err)
	}
	status, body = plainHTTP(t, http.MethodGet, fmt.Sprintf("%s/schemas/ids/%d", registryURL(t, n), ids["plain-value"]), "")
	if status != http.StatusOK || body["schema"] != `"string"` {
		t.Errorf("plain GET by id after restart: %d %v", status, body)
	}
	next, err := cl.CreateSchema(ctx, "new-value", sr.Schema{Schema: `"bytes"`})
	if err != nil || next.ID != len(ids)+1 {
		t.Errorf("a new schema after restart: %+v %v, want id %d", next, err, len(ids)+1)
	}
}

// TestSchemaRegistryServersShareOne: two servers of one service id on one
// `sqlstream broker`, each with its registry on the shared _schemas
// topic: what is registered through either has the same id on both.
func TestSchemaRegistryServersShareOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	br := startBrokerProcess(t)
	cfg := writeConfig(t, scaleoutConfig)
	a := startServerOn(t, br.Kafka, "--config", cfg, "--schema-registry-listen", "127.0.0.1:0")
	b := startServerOn(t, br.Kafka, "--config", cfg, "--schema-registry-listen", "127.0.0.1:0")
	ca, cb := registryClient(t, registryURL(t, a)), registryClient(t, registryURL(t, b))
	first, err := ca.CreateSchema(ctx, "shared-value", sr.Schema{Schema: srAvro})
	if err != nil {
		t.Fatal(err)
	}
	onB, err := cb.SchemaByVersion(ctx, "shared-value", 1)
	if err != nil || onB.ID != first.ID {
		t.Fatalf("B reads A's registration: %+v %v, want id %d", onB, err, first.ID)
	}
	second, err := cb.CreateSchema(ctx, "other-value", sr.Schema{Schema: srProto, Type: sr.TypeProtobuf})
	if err != nil || second.ID == first.ID {
		t.Fatalf("B registers a second schema: %+v %v", second, err)
	}
	if s, err := ca.SchemaByID(ctx, second.ID); err != nil || s.Schema != srProto {
		t.Fatalf("A reads B's id %d: %+v %v", second.ID, s, err)
	}
	if again, err := cb.CreateSchema(ctx, "shared-value", sr.Schema{Schema: srAvro}); err != nil || again.ID != first.ID || again.Version != 1 {
		t.Fatalf("B registers A's schema again: %+v %v", again, err)
	}
}

// TestExternalSchemaRegistryURL: with ksql.schema.registry.url set, the
// embedded registry does not start: the server starts although the
// default registry port is held, and says which registry it uses.
func TestExternalSchemaRegistryURL(t *testing.T) {
	t.Parallel()
	external := httptest.NewServer(srfake.NewRegistry().Handler())
	defer external.Close()
	held, err := net.Listen("tcp", "127.0.0.1:8081")
	if err == nil {
		defer held.Close()
	} // else another process holds it: as good for this test
	dataDir := t.TempDir()
	n := startNodeArgs(t, dataDir, "--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0",
		"--data-dir", dataDir, "--schema-registry-url", external.URL)
	if strings.Contains(n.Logs(), "schema registry ready") || !strings.Contains(n.Logs(), "using an external schema registry") ||
		!strings.Contains(n.Logs(), external.URL) {
		t.Fatalf("logs do not say the external registry is used:\n%s", n.Logs())
	}
}

// TestSchemaRegistryPortInUse: a taken --schema-registry-listen address
// is an error at start that names the flag.
func TestSchemaRegistryPortInUse(t *testing.T) {
	t.Parallel()
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, errOut := runBinary(t, "server", "--listen", "127.0.0.1:0", "--broker-listen", "127.0.0.1:0",
		"--schema-registry-listen", held.Addr().String(), "--data-dir", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "--schema-registry-listen "+held.Addr().String()) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}

// TestSchemaRegistryBasicAuth: with authentication.method=BASIC the
// embedded registry takes the HTTP API's users and roles: no or wrong
// credentials, or a user without an allowed role, get 401.
func TestSchemaRegistryBasicAuth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(users, []byte("alice: wonderland,admin\nbob: builder,guest\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := startNode(t, "--config", writeConfig(t, "authentication.method=BASIC\nauthentication.roles=admin\nsqlstream.authentication.users.file="+users+"\n"))
	url := registryURL(t, n)
	for _, c := range []struct {
		user, pass string
		ok         bool
	}{{"", "", false}, {"alice", "nope", false}, {"bob", "builder", false}, {"alice", "wonderland", true}} {
		opts := []sr.ClientOpt{sr.URLs(url)}
		if c.user != "" {
			opts = append(opts, sr.BasicAuth(c.user, c.pass))
		}
		cl, err := sr.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.CreateSchema(ctx, "auth-value", sr.Schema{Schema: srAvro})
		var re *sr.ResponseError
		if c.ok != (err == nil) || (!c.ok && (!errors.As(err, &re) || re.StatusCode != http.StatusUnauthorized)) {
			t.Errorf("%s/%s: %v", c.user, c.pass, err)
		}
	}
}
