// Package kafkasec makes the TLS and SASL options of the engine's Kafka
// clients from their typed settings (props.Kafka, read once with the
// engine's configuration): SSL trusts the PEM CAs of
// ssl.truststore.location (the system's when unset) and presents the
// certificate and key of ssl.keystore.location; SASL_PLAINTEXT and
// SASL_SSL authenticate with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 and
// the JAAS entry's username and password. PLAINTEXT adds none.
//
//	props.Kafka ─► Options ─► kgo.DialTLSConfig, kgo.SASL ─► exec.KafkaConfig.Security
//
// ClientOptions (clients.go) makes the options of a query's Kafka client
// settings (props.Clients: acks, compression.type, linger.ms, fetch
// sizes, client.id, …), which the runner adds after its own.
//
//	props.Clients ─► ClientOptions ─► exec.Config.Clients
//	props.Clients.Restore ─► ReaderOptions ─► exec.Config.RestoreClients
//	props.Clients.Global ─► ReaderOptions ─► global.Env.Clients
package kafkasec

import (
	"crypto/tls"
	"fmt"

	"github.com/sqlstream/sqlstream/internal/pemfile"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// Options maps the Kafka clients' security settings (props.Kafka,
// read once with the engine's configuration: security.protocol,
// sasl.mechanism, sasl.jaas.config, ssl.truststore.location,
// ssl.keystore.location) to franz-go options. Every Kafka client of the
// engine is made with them (exec.Kafka.client). PLAINTEXT, the default,
// adds none.
func Options(k props.Kafka) ([]kgo.Opt, error) {
	var opts []kgo.Opt
	if k.TLS {
		cfg, err := kafkaTLS(k)
		if err != nil {
			return nil, err
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if k.SASL {
		m, err := saslMechanism(k)
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
func kafkaTLS(k props.Kafka) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if k.Trust != "" {
		pool, err := pemfile.LoadCertPool(k.Trust)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", props.TrustLocation, err)
		}
		cfg.RootCAs = pool
	}
	if k.Key != "" {
		cert, err := pemfile.LoadKeyPair(k.Key, k.Key)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", props.KeyLocation, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// saslMechanism builds the mechanism of sasl.mechanism with the username
// and password of sasl.jaas.config.
func saslMechanism(k props.Kafka) (sasl.Mechanism, error) {
	switch k.Mechanism {
	case "", "plain":
		return plain.Auth{User: k.User, Pass: k.Password}.AsMechanism(), nil
	case "scram-sha-256":
		return scram.Auth{User: k.User, Pass: k.Password}.AsSha256Mechanism(), nil
	case "scram-sha-512":
		return scram.Auth{User: k.User, Pass: k.Password}.AsSha512Mechanism(), nil
	}
	// The table admits no other value.
	return nil, fmt.Errorf("%s=%s: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", props.SASLMechanism, k.Mechanism)
}
