package runtime

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/format"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/twmb/franz-go/pkg/sasl"
)

// Option configures an Engine. The options are this package's With…
// functions; no other package can make one.
type Option interface{ apply(*options) }

// optionFunc is an Option that sets fields of options.
type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

type options struct {
	bootstrap []string
	serviceID string
	dataDir   string
	props     map[string]string
	logger    *slog.Logger
	cluster   exec.Cluster
	// createTopics: see qttmode.Mode.CreateMissingTopics.
	createTopics bool
	// appPrefix and countQueries: see qttmode.Mode.Naming.
	appPrefix    string
	countQueries bool
	advertised   string // see WithAdvertisedListener
	// replicaFault: see withReplicaFault.
	replicaFault func(store string, partition int32, offset int64) error
	// stateFS: see withStateFS.
	stateFS vfs.FS
	// globalHook and globalCheck: see withGlobalLoadHook and
	// withGlobalPartitionCheck.
	globalHook  func(topic string, partition int32, offset int64) error
	globalCheck time.Duration
	// kafkaSASL: see WithKafkaSASL.
	kafkaSASL sasl.Mechanism
	// registry: see WithSchemaRegistry.
	registry format.SchemaRegistry
}

// WithKafkaSASL makes every Kafka client of the engine authenticate with
// m, besides (and after) what the security properties configure; default
// none. The binary gives it the embedded broker's internal user when the
// broker takes SASL.
func WithKafkaSASL(m sasl.Mechanism) Option { return optionFunc(func(o *options) { o.kafkaSASL = m }) }

// WithSchemaRegistry sets the schema registry of AVRO, PROTOBUF and
// JSON_SR, in place of the client ksql.schema.registry.url would build
// (tests and the QTT runner serve one in process). Default: that client,
// or none when the property is unset.
func WithSchemaRegistry(r format.SchemaRegistry) Option {
	return optionFunc(func(o *options) { o.registry = r })
}

// WithAdvertisedListener sets the URL the other servers of the service id
// reach this one at (ksql.advertised.listener; the caller resolves the
// property against the bound address). Default none: this server then
// neither routes pull queries to others nor receives them.
func WithAdvertisedListener(u string) Option {
	return optionFunc(func(o *options) { o.advertised = u })
}

// WithBootstrap sets the Kafka bootstrap servers. Required unless the
// engine runs on the in-memory test cluster.
func WithBootstrap(addrs []string) Option {
	return optionFunc(func(o *options) { o.bootstrap = addrs })
}

// WithServiceID sets ksql.service.id. Default "default_".
func WithServiceID(id string) Option { return optionFunc(func(o *options) { o.serviceID = id }) }

// WithDataDir sets the directory for local state. Default "./sqlstream-data/state".
func WithDataDir(dir string) Option { return optionFunc(func(o *options) { o.dataDir = dir }) }

// WithProperties sets server properties (ksqlDB key names), overriding the
// defaults. Default none.
func WithProperties(p map[string]string) Option { return optionFunc(func(o *options) { o.props = p }) }

// WithLogger sets the logger. Default slog.Default().
func WithLogger(l *slog.Logger) Option { return optionFunc(func(o *options) { o.logger = l }) }

func (o *options) validate() error {
	if o.cluster == nil && len(o.bootstrap) == 0 {
		return fmt.Errorf("runtime: no bootstrap servers given")
	}
	if o.serviceID == "" {
		return fmt.Errorf("runtime: empty service id")
	}
	t := props.NewTable()
	for _, k := range props.Properties(o.props).Sorted() {
		if err := t.Check(k, o.props[k]); err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
	}
	return nil
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// withReplicaFault sets a hook called before a standby or warmup replica
// applies each changelog record (store, partition, offset); an error it
// returns fails that apply as a store error would. For fault-injection
// tests (export_test.go); default none.
func withReplicaFault(f func(store string, partition int32, offset int64) error) Option {
	return optionFunc(func(o *options) { o.replicaFault = f })
}

// withStateFS sets the file system the state DB (Pebble) reads and writes
// the data directory through, so that a test can make it refuse writes
// (a full disk) under a running engine. For fault-injection tests
// (export_test.go); default the operating system's (vfs.Default).
func withStateFS(fs vfs.FS) Option {
	return optionFunc(func(o *options) { o.stateFS = fs })
}
