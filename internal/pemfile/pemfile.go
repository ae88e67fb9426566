// Package pemfile reads the PEM files of the engine's TLS settings
// (Kafka clients, the schema registry client, the HTTPS listener): CA
// certificates to trust, and a certificate chain with its unencrypted
// key. JKS and PKCS12 stores are refused with a message saying so. A
// leaf.
package pemfile

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// LoadCertPool reads the PEM certificates of file.
func LoadCertPool(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate (only PEM truststores are supported, not JKS or PKCS12)", file)
	}
	return pool, nil
}

// LoadKeyPair reads a PEM certificate chain and its unencrypted private
// key (both may be in one file).
func LoadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	cert, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %w (only PEM keystores with an unencrypted key are supported, not JKS or PKCS12)", certFile, err)
	}
	return pair, nil
}
