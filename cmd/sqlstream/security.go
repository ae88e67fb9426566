package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"strings"

	"github.com/sqlstream/sqlstream/cmd/sqlstream/internal/cli"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/server"
)

// serverSecurity maps the HTTP API's security properties to server
// options: authentication.method=BASIC with the users of
// sqlstream.authentication.users.file, and HTTPS when listeners is an
// https:// URL, with sqlstream.ssl.certificate.location and
// sqlstream.ssl.key.location, or one PEM file in ssl.keystore.location.
func serverSecurity(p runtime.Properties) ([]server.Option, error) {
	var opts []server.Option
	if strings.EqualFold(p[runtime.PropAuthMethod], "BASIC") {
		o, err := basicAuth(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(p[runtime.PropListeners])), "https://") {
		cert, err := listenerCertificate(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, server.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}
	return opts, nil
}

// checkKafkaSecurity refuses Kafka client security with the embedded
// broker, which speaks PLAINTEXT (with SASL when the API has BASIC
// users, which the engine's clients get without properties): the engine
// would not reach it.
func checkKafkaSecurity(embedded bool, p runtime.Properties) error {
	if proto := strings.ToUpper(p[runtime.PropSecProtocol]); embedded && proto != "" && proto != "PLAINTEXT" {
		return fmt.Errorf("security.protocol=%s needs an external Kafka (bootstrap.servers): the embedded broker speaks PLAINTEXT only", proto)
	}
	return nil
}

// BrokerUsers gives the embedded broker the API's users when
// authentication.method=BASIC, so that Kafka clients authenticate as
// they do to the API (cli.BrokerUsers).
func (wiring) BrokerUsers(s cli.Settings) (map[string]string, error) {
	p := runtime.ServerProperties(s.Properties)
	if !strings.EqualFold(p[runtime.PropAuthMethod], "BASIC") {
		return nil, nil
	}
	users, _, err := readUsers(p)
	if err != nil {
		return nil, err
	}
	return users.Credentials(), nil
}

func basicAuth(p runtime.Properties) (server.Option, error) {
	users, roles, err := readUsers(p)
	if err != nil {
		return nil, err
	}
	return server.WithBasicAuth(p[runtime.PropAuthRealm], roles, users), nil
}

// readUsers reads sqlstream.authentication.users.file and the allowed
// roles (authentication.roles), for the HTTP API and the embedded schema
// registry alike.
func readUsers(p runtime.Properties) (server.Users, []string, error) {
	path := p[runtime.PropAuthUsersFile]
	if path == "" {
		return nil, nil, fmt.Errorf("%s=BASIC needs %s (lines of 'user: password[,role…]')", runtime.PropAuthMethod, runtime.PropAuthUsersFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", runtime.PropAuthUsersFile, err)
	}
	defer f.Close()
	users, err := server.ParseUsers(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", runtime.PropAuthUsersFile, path, err)
	}
	if len(users) == 0 {
		return nil, nil, fmt.Errorf("%s %s has no users", runtime.PropAuthUsersFile, path)
	}
	var roles []string
	for _, r := range strings.Split(p[runtime.PropAuthRoles], ",") {
		if r = strings.TrimSpace(r); r != "" {
			roles = append(roles, r)
		}
	}
	return users, roles, nil
}

func listenerCertificate(p runtime.Properties) (tls.Certificate, error) {
	cert, key := p[runtime.PropCertLocation], p[runtime.PropCertKey]
	if cert == "" {
		cert, key = p[runtime.PropKeyLocation], p[runtime.PropKeyLocation]
	}
	if cert == "" || key == "" {
		return tls.Certificate{}, fmt.Errorf("an https listener needs %s and %s, or %s (one PEM file with both)",
			runtime.PropCertLocation, runtime.PropCertKey, runtime.PropKeyLocation)
	}
	return runtime.LoadKeyPair(cert, key)
}
