package runtime

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kfake"
)

// TestKafkaSecurity: the engine's Kafka clients authenticate with SASL
// PLAIN and SCRAM from sasl.jaas.config, and connect over TLS trusting a
// PEM CA, against a kfake broker that requires them; a wrong password is
// refused.
func TestKafkaSecurity(t *testing.T) {
	sasl, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "alice", "pw-a"), kfake.Superuser("SCRAM-SHA-256", "bob", "pw-b"))
	if err != nil {
		t.Fatal(err)
	}
	defer sasl.Close()
	jaas := func(u, p string) string {
		return `org.apache.kafka.common.security.plain.PlainLoginModule required username="` + u + `" password='` + p + `';`
	}
	for name, c := range map[string]struct {
		props props.Properties
		ok    bool
	}{
		"plain":          {props.Properties{props.SecProtocol: "SASL_PLAINTEXT", props.SASLMechanism: "PLAIN", props.SASLJAAS: jaas("alice", "pw-a")}, true},
		"scram":          {props.Properties{props.SecProtocol: "SASL_PLAINTEXT", props.SASLMechanism: "SCRAM-SHA-256", props.SASLJAAS: jaas("bob", "pw-b")}, true},
		"wrong password": {props.Properties{props.SecProtocol: "SASL_PLAINTEXT", props.SASLMechanism: "PLAIN", props.SASLJAAS: jaas("alice", "nope")}, false},
	} {
		if err := pingWith(sasl.ListenAddrs(), c.props); (err == nil) != c.ok {
			t.Errorf("%s: ping error %v, want success %v", name, err, c.ok)
		}
	}

	ca, serverCert := testCertificates(t)
	tlsBroker, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{serverCert}}))
	if err != nil {
		t.Fatal(err)
	}
	defer tlsBroker.Close()
	if err := pingWith(tlsBroker.ListenAddrs(), props.Properties{props.SecProtocol: "SSL", props.TrustLocation: ca}); err != nil {
		t.Errorf("TLS with the CA: %v", err)
	}
	if err := pingWith(tlsBroker.ListenAddrs(), props.Properties{props.SecProtocol: "PLAINTEXT"}); err == nil {
		t.Errorf("PLAINTEXT reached a TLS broker")
	}
}

func pingWith(seeds []string, p props.Properties) error {
	sec, err := KafkaSecurity(p)
	if err != nil {
		return err
	}
	k, err := exec.NewKafka(exec.KafkaConfig{Seeds: seeds, Logger: slog.New(slog.DiscardHandler), Security: sec})
	if err != nil {
		return err
	}
	defer k.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return k.Ping(ctx)
}

// testCertificates makes a CA (written as PEM, its path returned) and a
// certificate it signed for 127.0.0.1 and localhost.
func testCertificates(t *testing.T) (string, tls.Certificate) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
