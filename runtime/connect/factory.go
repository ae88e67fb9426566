package connect

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/internal/pemfile"
)

// Config is how connector statements reach Kafka Connect, read once when
// the engine starts (runtime/props' ConnectConfig; the engine copies it
// here, as this package imports no sqlstream package but the internal
// leaves).
type Config struct {
	URL     string
	Timeout time.Duration // each request's (ksql.connect.request.timeout.ms)
	// CredentialsFile, when set, holds the username and password sent to
	// Connect; otherwise the request's own Authorization header is.
	CredentialsFile   string
	ReloadCredentials bool
	Trust             string // PEM CA certificates for an https Connect ("" for the system's roots)
	Key               string // PEM client certificate and key ("" for none)
	VerifyHost        bool   // check Connect's host name
}

// Factory makes the clients of the configured Connect cluster, one per
// statement, as ksqlDB's DefaultConnectClientFactory does: the
// credentials file's header when one is configured, else the header the
// statement's request carried.
type Factory struct {
	cfg Config
	// transport carries the TLS settings, shared by the factory's
	// clients; nil: net/http's default.
	transport *http.Transport
	creds     *Credentials // nil: forward the request's header
}

// NewFactory reads the TLS files of cfg when Connect's URL is https (the
// only scheme they serve; the bare ssl.* settings they fall back to are
// the Kafka clients', so an http Connect must not need them readable);
// the error names the file.
func NewFactory(cfg Config) (*Factory, error) {
	f := &Factory{cfg: cfg}
	if cfg.CredentialsFile != "" {
		f.creds = NewCredentials(cfg.CredentialsFile, cfg.ReloadCredentials)
	}
	if u, err := url.Parse(cfg.URL); err != nil || !strings.EqualFold(u.Scheme, "https") {
		return f, nil
	}
	t, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	if t != nil {
		f.transport = http.DefaultTransport.(*http.Transport).Clone()
		f.transport.TLSClientConfig = t
	}
	return f, nil
}

// URL is the Connect cluster's URL.
func (f *Factory) URL() string { return f.cfg.URL }

// Client is a client of the cluster sending forwarded (the request's
// Authorization header, "" for none) unless a credentials file is
// configured.
func (f *Factory) Client(forwarded string) (*Client, error) {
	auth := forwarded
	if f.creds != nil {
		h, err := f.creds.Header()
		if err != nil {
			return nil, err
		}
		auth = h
	}
	c, err := New(f.cfg.URL, f.cfg.Timeout, auth)
	if err != nil {
		return nil, err
	}
	if f.transport != nil {
		c.http.Transport = f.transport
	}
	return c, nil
}

// tlsConfig is the Connect client's TLS: nil when nothing differs from
// Go's defaults.
func tlsConfig(cfg Config) (*tls.Config, error) {
	if cfg.Trust == "" && cfg.Key == "" && cfg.VerifyHost {
		return nil, nil
	}
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.Trust != "" {
		pool, err := pemfile.LoadCertPool(cfg.Trust)
		if err != nil {
			return nil, fmt.Errorf("Kafka Connect truststore (ksql.connect.ssl.truststore.location): %w", err)
		}
		t.RootCAs = pool
	}
	if cfg.Key != "" {
		pair, err := pemfile.LoadKeyPair(cfg.Key, cfg.Key)
		if err != nil {
			return nil, fmt.Errorf("Kafka Connect keystore (ksql.connect.ssl.keystore.location): %w", err)
		}
		t.Certificates = []tls.Certificate{pair}
	}
	if !cfg.VerifyHost {
		skipHostName(t)
	}
	return t, nil
}

// skipHostName makes t check Connect's certificate chain against its
// roots but not the host name it was issued for (endpoint identification
// none, as ksqlDB's client then does), instead of Go's check of both.
func skipHostName(t *tls.Config) {
	t.InsecureSkipVerify = true // the chain is verified below
	t.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("Kafka Connect presented no certificate")
		}
		opts := x509.VerifyOptions{Roots: t.RootCAs, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(opts)
		return err
	}
}
