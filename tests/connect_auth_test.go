package tests

import (
	"context"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// TestConnectCredentialsAndTLS: the binary reaches an https Kafka
// Connect that requires basic auth (connecttest's fake in this process:
// no real Connect runs here) through ksql.connect.ssl.truststore.location
// and ksql.connect.basic.auth.credentials.*: every request carries the
// credentials file's username and password, a changed file is read again
// (reload), and Connect's refusal of wrong ones is the statement's 401.
func TestConnectCredentialsAndTLS(t *testing.T) {
	t.Parallel()
	fake := connecttest.NewTLS()
	defer fake.Close()
	fake.RequireLogin("fred", "pass")
	dir := t.TempDir()
	ca := filepath.Join(dir, "connect-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fake.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(dir, "connect.credentials")
	rewrite(t, creds, "username=fred\npassword=pass\n")
	n := startNode(t, "--config", writeConfig(t, "ksql.connect.url="+fake.URL+"\n"+
		"ksql.connect.ssl.truststore.location="+ca+"\n"+
		"ksql.connect.basic.auth.credentials.source=FILE\n"+
		"ksql.connect.basic.auth.credentials.file="+creds+"\n"+
		"ksql.connect.basic.auth.credentials.reload=true\n"))

	expectBody(t, n, "CREATE SOURCE CONNECTOR lines WITH ('connector.class'='io.example.FileSource', 'file'='/tmp/x', 'topic'='t');", 200,
		`"@type":"connector_info"`, `"name":"LINES"`)
	expectBody(t, n, "SHOW CONNECTORS;", 200, `"name":"LINES","type":"source","className":"io.example.FileSource","state":"RUNNING (1/1 tasks RUNNING)"`)
	for i, a := range fake.Authorizations() {
		if a != "Basic ZnJlZDpwYXNz" {
			t.Errorf("request %d (%s) carried Authorization %q, want Basic base64(fred:pass)", i, fake.Requests()[i], a)
		}
	}
	rewrite(t, creds, "username=fred\npassword=wrong\n")
	expectBody(t, n, "SHOW CONNECTORS;", 401,
		`{"@type":"generic_error","error_code":40100,"message":"Failed to list connectors: User cannot access the resource."}`)
	n.mustKsql("SHOW STREAMS;")
}

// TestConnectForwardsAuthorization: with no credentials file (the
// default source, NONE) a connector statement sends Kafka Connect the
// Authorization header its request carried, as ksqlDB does, also on a
// server without authentication of its own; a request without one sends
// none.
func TestConnectForwardsAuthorization(t *testing.T) {
	t.Parallel()
	fake := connecttest.New()
	defer fake.Close()
	fake.RequireLogin("wilma", "flintstone")
	n := startNode(t, "--config", writeConfig(t, "ksql.connect.url="+fake.URL+"\n"))
	req := n.newRequest(context.Background(), "/ksql", "application/vnd.ksql.v1+json", map[string]any{"ksql": "SHOW CONNECTORS;"})
	req.Header.Set("Authorization", "Basic d2lsbWE6ZmxpbnRzdG9uZQ==")
	resp, err := httpClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"@type":"connector_list"`) {
		t.Errorf("SHOW CONNECTORS with the user's header: %d %s", resp.StatusCode, body)
	}
	expectBody(t, n, "SHOW CONNECTORS;", 401, `"message":"Failed to list connectors: User cannot access the resource."`)
	if a := fake.Authorizations(); len(a) != 2 || a[0] != "Basic d2lsbWE6ZmxpbnRzdG9uZQ==" || a[1] != "" {
		t.Errorf("Authorization headers Connect received: %q", a)
	}
}
