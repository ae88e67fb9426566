package repl

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"net/url"
	"os"
)

// credentials are the basic-authentication user and password the REPL
// sends with every request: Config.User and Config.Password, else the
// userinfo of Config.ServerURL (http://user:password@host:port).
type credentials struct{ user, password string }

// splitCredentials returns the server URL without its userinfo and the
// credentials to send.
func (c *Config) splitCredentials() (string, credentials) {
	u, err := url.Parse(c.ServerURL)
	if err != nil || u.User == nil {
		return c.ServerURL, credentials{user: c.User, password: c.Password}
	}
	cr := credentials{user: u.User.Username()}
	cr.password, _ = u.User.Password()
	if c.User != "" {
		cr = credentials{user: c.User, password: c.Password}
	}
	u.User = nil
	return u.String(), cr
}

// apply adds the credentials to req.
func (cr credentials) apply(req *http.Request) {
	if cr.user != "" {
		req.SetBasicAuth(cr.user, cr.password)
	}
}

// trustingClient returns an HTTP client that trusts the PEM CA
// certificates of caFile besides the system's.
func trustingClient(caFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("repl: " + caFile + " holds no PEM certificate")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}
