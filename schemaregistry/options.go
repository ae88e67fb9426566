package schemaregistry

import (
	"log/slog"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Option configures a Registry.
type Option func(*options)

type options struct {
	kafka  []kgo.Opt
	topic  string
	logger *slog.Logger
	auth   func(user, password string) bool
	realm  string
}

const (
	// DefaultTopic is Confluent's kafkastore.topic default.
	DefaultTopic = "_schemas"
	// DefaultListen is where Confluent's registry listens by default.
	DefaultListen = "127.0.0.1:8081"

	defaultCompatibility = "BACKWARD"
	defaultMode          = "READWRITE"
	maxWriteAttempts     = 10
)

// WithKafka sets the Kafka client options of the _schemas log: seed
// brokers and any security. Required.
func WithKafka(opts ...kgo.Opt) Option {
	return func(o *options) { o.kafka = append(o.kafka, opts...) }
}

// WithTopic sets the log topic (Confluent's kafkastore.topic). Default
// DefaultTopic, "_schemas". Servers that share a topic share a registry.
func WithTopic(t string) Option { return func(o *options) { o.topic = t } }

// WithLogger sets the logger. Default slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithBasicAuth requires HTTP basic authentication that allows accepts.
// Default: none.
func WithBasicAuth(realm string, allows func(user, password string) bool) Option {
	return func(o *options) { o.realm, o.auth = realm, allows }
}

func defaultOptions() options {
	return options{topic: DefaultTopic, logger: slog.Default()}
}
