package connect

import (
	"context"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/connect/connecttest"
)

// writeFile writes text to a file of dir and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lastAuth runs SHOW CONNECTORS' first request through a client of f and
// returns the Authorization header Connect received.
func lastAuth(t *testing.T, f *Factory, fake *connecttest.Connect, forwarded string) string {
	t.Helper()
	c, err := f.Client(forwarded)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Connectors(context.Background()); err != nil {
		t.Fatal(err)
	}
	a := fake.Authorizations()
	return a[len(a)-1]
}

// TestFactoryHeaders: without a credentials file the request's
// Authorization header is forwarded (none when it had none); with one,
// the file's username and password are sent instead, as ksqlDB's
// DefaultConnectClientFactory sends them; a Connect that requires them
// accepts them.
func TestFactoryHeaders(t *testing.T) {
	fake := connecttest.New()
	defer fake.Close()
	f, err := NewFactory(Config{URL: fake.URL, Timeout: 5 * time.Second, VerifyHost: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastAuth(t, f, fake, "Basic dTpw"); got != "Basic dTpw" {
		t.Errorf("forwarded: %q", got)
	}
	if got := lastAuth(t, f, fake, ""); got != "" {
		t.Errorf("nothing to forward: %q", got)
	}
	fake.RequireLogin("fred", "pass")
	file := writeFile(t, t.TempDir(), "creds", "# Connect's\nusername=fred\npassword: pass\n")
	f, err = NewFactory(Config{URL: fake.URL, Timeout: 5 * time.Second, CredentialsFile: file, VerifyHost: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := lastAuth(t, f, fake, "Basic dTpw"); got != "Basic ZnJlZDpwYXNz" {
		t.Errorf("credentials file: %q, want Basic base64(fred:pass)", got)
	}
}

// TestCredentialsReload: with reload a changed file is read again and a
// deleted one keeps the last credentials; without it the first reading
// stays. A file without both keys, or none at all, is an error naming
// it, never a request without credentials.
func TestCredentialsReload(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "creds", "username=fred\npassword=pass\n")
	reloading, fixed := NewCredentials(file, true), NewCredentials(file, false)
	for _, c := range []*Credentials{reloading, fixed} {
		if h, err := c.Header(); err != nil || h != "Basic ZnJlZDpwYXNz" {
			t.Fatalf("first read: %q, %v", h, err)
		}
	}
	writeFile(t, dir, "creds", "username=barney\npassword=rubble\n")
	if h, _ := reloading.Header(); h != "Basic YmFybmV5OnJ1YmJsZQ==" {
		t.Errorf("reloaded: %q, want Basic base64(barney:rubble)", h)
	}
	if h, _ := fixed.Header(); h != "Basic ZnJlZDpwYXNz" {
		t.Errorf("not reloaded: %q", h)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if h, err := reloading.Header(); err != nil || h != "Basic YmFybmV5OnJ1YmJsZQ==" {
		t.Errorf("deleted: %q, %v, want the last credentials", h, err)
	}
	writeFile(t, dir, "creds", "username=wilma\n")
	if _, err := reloading.Header(); err == nil || !strings.Contains(err.Error(), file+" (ksql.connect.basic.auth.credentials.file): it provides no username and password") {
		t.Errorf("no password: %v", err)
	}
	if _, err := NewCredentials(filepath.Join(dir, "none"), false).Header(); err == nil || !strings.Contains(err.Error(), "Could not read the Kafka Connect credentials file") {
		t.Errorf("missing file: %v", err)
	}
}

// TestFactoryTLS: an https Connect is trusted through
// ksql.connect.ssl.truststore.location; its host name is checked unless
// the endpoint identification algorithm is none, which still checks the
// certificate's chain.
// TestFactoryTLSOnlyForHTTPS: the TLS files serve an https Connect only;
// an http one starts even when they (the Kafka clients' ssl.* settings,
// which they fall back to) are not readable, and an https one says which.
func TestFactoryTLSOnlyForHTTPS(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "unused.pem")
	if _, err := NewFactory(Config{URL: "http://localhost:8083", Key: missing, Trust: missing}); err != nil {
		t.Fatalf("an http Connect read the TLS files: %v", err)
	}
	_, err := NewFactory(Config{URL: "https://localhost:8083", Key: missing})
	if err == nil || !strings.Contains(err.Error(), "ksql.connect.ssl.keystore.location") {
		t.Fatalf("an https Connect with an unreadable keystore: %v", err)
	}
}

func TestFactoryTLS(t *testing.T) {
	fake := connecttest.NewTLS()
	defer fake.Close()
	dir := t.TempDir()
	ca := writeFile(t, dir, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: fake.Certificate().Raw})))
	byName := strings.Replace(fake.URL, "127.0.0.1", "localhost", 1) // the certificate names 127.0.0.1, not localhost
	for _, tc := range []struct {
		cfg  Config
		want string // "" for success
	}{
		{Config{URL: fake.URL, Trust: ca, VerifyHost: true}, ""},
		{Config{URL: byName, Trust: ca, VerifyHost: true}, "certificate is valid for"},
		{Config{URL: byName, Trust: ca}, ""},
		{Config{URL: fake.URL, VerifyHost: true}, "certificate signed by unknown authority"},
		{Config{URL: byName}, "certificate signed by unknown authority"},
	} {
		tc.cfg.Timeout = 5 * time.Second
		f, err := NewFactory(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.Client("")
		if err != nil {
			t.Fatal(err)
		}
		c.backoff = time.Millisecond
		_, err = c.Connectors(context.Background())
		if (tc.want == "" && err != nil) || (tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want))) {
			t.Errorf("%+v: %v, want %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := NewFactory(Config{URL: fake.URL, Trust: filepath.Join(dir, "none.pem")}); err == nil || !strings.Contains(err.Error(), "ksql.connect.ssl.truststore.location") {
		t.Errorf("missing truststore: %v", err)
	}
}
