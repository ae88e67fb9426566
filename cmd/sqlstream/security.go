package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"strings"

	"github.com/sqlstream/sqlstream/cmd/sqlstream/internal/cli"
	"github.com/sqlstream/sqlstream/internal/pemfile"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/server"
)

// serverSecurity maps the HTTP API's security properties to server
// options: authentication.method=BASIC with the users of
// sqlstream.authentication.users.file, and HTTPS when listeners is an
// https:// URL, with sqlstream.ssl.certificate.location and
// sqlstream.ssl.key.location, or one PEM file in ssl.keystore.location.
func serverSecurity(p props.Properties) ([]server.Option, error) {
	var opts []server.Option
	if strings.EqualFold(p[props.AuthMethod], "BASIC") {
		o, err := basicAuth(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, o)
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(p[props.Listeners])), "https://") {
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
func checkKafkaSecurity(embedded bool, p props.Properties) error {
	if proto := strings.ToUpper(p[props.SecProtocol]); embedded && proto != "" && proto != "PLAINTEXT" {
		return fmt.Errorf("security.protocol=%s needs an external Kafka (bootstrap.servers): the embedded broker speaks PLAINTEXT only", proto)
	}
	return nil
}

// BrokerUsers gives the embedded broker the API's users when
// authentication.method=BASIC, so that Kafka clients authenticate as
// they do to the API (cli.BrokerUsers).
func (wiring) BrokerUsers(s cli.Settings) (map[string]string, error) {
	p := props.Server(s.Properties)
	if !strings.EqualFold(p[props.AuthMethod], "BASIC") {
		return nil, nil
	}
	users, _, err := readUsers(p)
	if err != nil {
		return nil, err
	}
	return users.Credentials(), nil
}

func basicAuth(p props.Properties) (server.Option, error) {
	users, roles, err := readUsers(p)
	if err != nil {
		return nil, err
	}
	return server.WithBasicAuth(p[props.AuthRealm], roles, users), nil
}

// readUsers reads sqlstream.authentication.users.file and the allowed
// roles (authentication.roles), for the HTTP API and the embedded schema
// registry alike.
func readUsers(p props.Properties) (server.Users, []string, error) {
	path := p[props.AuthUsersFile]
	if path == "" {
		return nil, nil, fmt.Errorf("%s=BASIC needs %s (lines of 'user: password[,role…]')", props.AuthMethod, props.AuthUsersFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", props.AuthUsersFile, err)
	}
	defer f.Close()
	users, err := server.ParseUsers(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", props.AuthUsersFile, path, err)
	}
	if len(users) == 0 {
		return nil, nil, fmt.Errorf("%s %s has no users", props.AuthUsersFile, path)
	}
	var roles []string
	for _, r := range strings.Split(p[props.AuthRoles], ",") {
		if r = strings.TrimSpace(r); r != "" {
			roles = append(roles, r)
		}
	}
	return users, roles, nil
}

func listenerCertificate(p props.Properties) (tls.Certificate, error) {
	cert, key := p[props.CertLocation], p[props.CertKey]
	if cert == "" {
		cert, key = p[props.KeyLocation], p[props.KeyLocation]
	}
	if cert == "" || key == "" {
		return tls.Certificate{}, fmt.Errorf("an https listener needs %s and %s, or %s (one PEM file with both)",
			props.CertLocation, props.CertKey, props.KeyLocation)
	}
	return pemfile.LoadKeyPair(cert, key)
}
