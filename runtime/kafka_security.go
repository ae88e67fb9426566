package runtime

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// KafkaSecurity maps the Kafka client security properties (Kafka's names:
// security.protocol, sasl.mechanism, sasl.jaas.config,
// ssl.truststore.location, ssl.keystore.location) to franz-go options.
// Every Kafka client of the engine is made with them (exec.Kafka.client),
// and so is the embedded schema registry's client of its _schemas topic
// (cmd/sqlstream), which lives on the same Kafka. PLAINTEXT, the
// default, adds none.
func KafkaSecurity(p props.Properties) ([]kgo.Opt, error) {
	proto := strings.ToUpper(p[props.SecProtocol])
	var opts []kgo.Opt
	switch proto {
	case "", "PLAINTEXT":
		return nil, nil
	case "SSL", "SASL_SSL":
		cfg, err := kafkaTLS(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	case "SASL_PLAINTEXT":
	default:
		return nil, fmt.Errorf("%s=%s: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", props.SecProtocol, proto)
	}
	if strings.HasPrefix(proto, "SASL_") {
		m, err := saslMechanism(p)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// kafkaTLS trusts the CA certificates of ssl.truststore.location (PEM; the
// system's when unset) and presents the certificate and key of
// ssl.keystore.location (one PEM file) when set.
func kafkaTLS(p props.Properties) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if loc := p[props.TrustLocation]; loc != "" {
		pool, err := LoadCertPool(loc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", props.TrustLocation, err)
		}
		cfg.RootCAs = pool
	}
	if loc := p[props.KeyLocation]; loc != "" {
		cert, err := LoadKeyPair(loc, loc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", props.KeyLocation, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

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

// jaasOption is one key="value" (or key='value') of a JAAS entry.
var jaasOption = regexp.MustCompile(`(\w+)\s*=\s*(?:"([^"]*)"|'([^']*)')`)

// saslMechanism builds the mechanism of sasl.mechanism with the username
// and password of sasl.jaas.config (a PlainLoginModule or
// ScramLoginModule entry).
func saslMechanism(p props.Properties) (sasl.Mechanism, error) {
	user, pass, err := jaasCredentials(p[props.SASLJAAS])
	if err != nil {
		return nil, err
	}
	switch mech := strings.ToUpper(p[props.SASLMechanism]); mech {
	case "", "PLAIN":
		return plain.Auth{User: user, Pass: pass}.AsMechanism(), nil
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pass}.AsSha256Mechanism(), nil
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pass}.AsSha512Mechanism(), nil
	default:
		return nil, fmt.Errorf("%s=%s: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", props.SASLMechanism, mech)
	}
}

func jaasCredentials(jaas string) (user, pass string, err error) {
	vals := map[string]string{}
	for _, m := range jaasOption.FindAllStringSubmatch(jaas, -1) {
		vals[m[1]] = m[2] + m[3]
	}
	user, okU := vals["username"]
	pass, okP := vals["password"]
	if !okU || !okP {
		return "", "", fmt.Errorf("%s needs username=\"…\" and password=\"…\"", props.SASLJAAS)
	}
	return user, pass, nil
}
