package server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/md5"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBasicAuth: with BASIC authentication, a request without
// credentials, with a wrong password or without an allowed role gets 401
// and ksqlDB's body; a user with an allowed role, plain or MD5 password,
// passes; /healthcheck and the /chc probes stay open.
func TestBasicAuth(t *testing.T) {
	sum := md5.Sum([]byte("s3cret"))
	users, err := ParseUsers(strings.NewReader("# users\nalice: wonderland,admin\nbob: MD5:" + hex.EncodeToString(sum[:]) + ",dev\ncarol: pw,guest\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(newFakeEngine(), WithBasicAuth("KsqlServer-Props", []string{"admin", "dev"}, users))
	for _, tc := range []struct {
		name, user, pass, path string
		status                 int
	}{
		{"no credentials", "", "", "/ksql", http.StatusUnauthorized},
		{"wrong password", "alice", "nope", "/ksql", http.StatusUnauthorized},
		{"unknown user", "mallory", "wonderland", "/ksql", http.StatusUnauthorized},
		{"role not allowed", "carol", "pw", "/ksql", http.StatusUnauthorized},
		{"plain password", "alice", "wonderland", "/ksql", http.StatusOK},
		{"MD5 password", "bob", "s3cret", "/ksql", http.StatusOK},
		{"healthcheck", "", "", "/healthcheck", http.StatusOK},
		{"liveness probe", "", "", "/chc/live", http.StatusOK},
		{"readiness probe", "", "", "/chc/ready", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method, body := "POST", io.Reader(strings.NewReader(`{"ksql":"SHOW STREAMS;"}`))
			if isProbePath(tc.path) {
				method, body = "GET", nil
			}
			req := httptest.NewRequest(method, tc.path, body)
			req.Header.Set("Content-Type", "application/json")
			req.Host = "127.0.0.1:8088"
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.status == http.StatusUnauthorized {
				if want := `{"@type":"generic_error","error_code":40100,"message":"Unauthorized"}`; strings.TrimSpace(rec.Body.String()) != want {
					t.Errorf("body %s, want %s", rec.Body, want)
				}
				if !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), `Basic realm="KsqlServer-Props"`) {
					t.Errorf("challenge %q", rec.Header().Get("WWW-Authenticate"))
				}
			}
		})
	}
	if _, err := ParseUsers(strings.NewReader("dave: CRYPT:adpexzg3FUZAk,admin\n")); err == nil {
		t.Errorf("CRYPT: password accepted")
	}
}

// TestEmptyPasswordRefused: a user whose password is empty (or an empty
// MD5:) is refused with its line, whatever roles follow.
func TestEmptyPasswordRefused(t *testing.T) {
	for _, file := range []string{"alice: ok\neve:\n", "alice: ok\neve: ,admin\n", "alice: ok\neve: MD5:,admin\n"} {
		_, err := ParseUsers(strings.NewReader(file))
		if err == nil || !strings.Contains(err.Error(), "line 2: user eve has an empty password") {
			t.Errorf("%q: %v", file, err)
		}
	}
}

// TestTLSRoundTrip: WithTLS serves HTTPS with a certificate a client
// trusting its CA verifies.
func TestTLSRoundTrip(t *testing.T) {
	pool, cert := serverCertificate(t)
	s := New(newFakeEngine(), WithListen("127.0.0.1:0"), WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}}))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	cl := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := cl.Get("https://" + s.Addr() + "/info")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Fatalf("GET /info over TLS: %d (TLS %v)", resp.StatusCode, resp.TLS != nil)
	}
	if resp, err := http.Get("http://" + s.Addr() + "/info"); err == nil && resp.StatusCode == http.StatusOK {
		t.Errorf("plain HTTP answered on the TLS listener")
	}
}

// TestOpenListenerWarning: listening beyond loopback without
// authentication logs a warning; with authentication it does not.
func TestOpenListenerWarning(t *testing.T) {
	for _, auth := range []bool{false, true} {
		var logs bytes.Buffer
		opts := []Option{WithListen("0.0.0.0:0"), WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))}
		if auth {
			opts = append(opts, WithBasicAuth("r", []string{"*"}, Users{"u": {password: "p"}}))
		}
		s := New(newFakeEngine(), opts...)
		if err := s.Start(); err != nil {
			t.Fatal(err)
		}
		s.Shutdown(context.Background())
		if got := strings.Contains(logs.String(), "beyond loopback without authentication"); got == auth {
			t.Errorf("authentication %v: warning logged %v:\n%s", auth, got, logs.String())
		}
		if got := strings.Contains(logs.String(), "passwords cross the network in clear"); got != auth {
			t.Errorf("authentication %v over HTTP: clear-text warning logged %v:\n%s", auth, got, logs.String())
		}
	}
}

func serverCertificate(t *testing.T) (*x509.CertPool, tls.Certificate) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return pool, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
