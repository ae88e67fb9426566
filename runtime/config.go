package runtime

import (
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/twmb/franz-go/pkg/sasl"
)

// Property keys the engine reads (ksqlDB's names).
const (
	PropServiceID        = "ksql.service.id"
	PropNumThreads       = "ksql.streams.num.stream.threads"
	PropCommitInterval   = "ksql.streams.commit.interval.ms"
	PropOffsetReset      = "ksql.streams.auto.offset.reset"
	PropGuarantee        = "ksql.streams.processing.guarantee"
	PropKeyFormat        = "ksql.persistence.default.format.key"
	PropValueFormat      = "ksql.persistence.default.format.value"
	PropFailOnDeserError = "ksql.fail.on.deserialization.error"
	PropInternalReplicas = "ksql.internal.topic.replicas"
	// PropVarSubstitution turns ${name} substitution off ("false") for a
	// session or request; ksqlDB's default is on.
	PropVarSubstitution  = "ksql.variable.substitution.enable"
	PropBootstrap        = "bootstrap.servers"
	PropListeners        = "listeners"
	PropAllowOrigin      = "access.control.allow.origin" // web origins whose pages may POST to the API
	PropStateDir         = "ksql.streams.state.dir"
	PropWrapSingle       = "ksql.persistence.wrap.single.values"
	PropCacheBytes       = "ksql.streams.cache.max.bytes.buffering"
	PropCollectListLimit = "ksql.functions.collect_list.limit"
	// PropLateTopic is sqlstream's own: a topic that receives, as dead
	// letters, the input records a windowed aggregation dropped because
	// their window had closed.
	PropThrowOnInvalidTS = "ksql.timestamp.throw.on.invalid"
	PropLateTopic        = "late.records.topic"
	// PropIdleClose is sqlstream's own: after this many milliseconds of
	// wall-clock time without records, EMIT FINAL windows of a quiet
	// partition close anyway (default 0: off, as in ksqlDB).
	PropIdleClose       = "window.close.idle.ms"
	PropCollectSetLimit = "ksql.functions.collect_set.limit"
	// PropShutdownTimeout bounds the wait for a query to stop (TERMINATE,
	// DROP, server shutdown); see query_stop.go.
	PropShutdownTimeout = "ksql.streams.shutdown.timeout.ms"
	// PropMaxPushQueries caps the push queries running at once.
	PropMaxPushQueries = "ksql.max.push.queries"
	// PropMaxWindowsPerRecord and PropMaxResultBytes are sqlstream's own
	// bounds on the work one record causes (see the property table).
	PropMaxWindowsPerRecord = "sqlstream.window.max.per.record"
	PropMaxResultBytes      = "sqlstream.function.max.result.bytes"
	// PropMaxPartitions is sqlstream's own: the largest partition count
	// CREATE may give a new topic (and the embedded broker accepts).
	PropMaxPartitions = "sqlstream.topic.partitions.max"
	// PropTopicNaming is sqlstream's own: "sqlstream" (the default:
	// application ids <service id>query_<query id>) or "ksqldb" (ksqlDB's
	// _confluent-ksql-<service id>query_<query id>); see queryAppPrefix.
	PropTopicNaming = "sqlstream.internal.topic.naming"
	// PropPersistentPrefix is ksqlDB's ksql.persistent.prefix, "query_":
	// what a persistent query's application id puts before its id.
	PropPersistentPrefix = "ksql.persistent.prefix"
	// PropMaxStatements is sqlstream's own: the most statements one /ksql
	// request may hold (ksqlDB has no limit; a request of 10,000 took
	// 3 GB to parse, as every statement is parsed before the first runs).
	PropMaxStatements = "sqlstream.request.max.statements"
	// Scale-out (Kafka Streams' names under ksql.streams.): the group
	// member's session timeout, and the standby and warmup replicas of
	// the task balancer (task_assignment.go).
	PropSessionTimeout  = "ksql.streams.session.timeout.ms"
	PropStandbys        = "ksql.streams.num.standby.replicas"
	PropRecoveryLag     = "ksql.streams.acceptable.recovery.lag"
	PropMaxWarmups      = "ksql.streams.max.warmup.replicas"
	PropProbingInterval = "ksql.streams.probing.rebalance.interval.ms"
)

// defaultSessionTimeoutMs is PropSessionTimeout's default: a dead
// server's tasks move after 10 s (the Java consumer's 45 s made a
// failover take most of a minute); the broker's
// group.min.session.timeout.ms (6 s by default) is the floor.
const defaultSessionTimeoutMs = 10_000

// defaultMaxPartitions is PropMaxPartitions' default: one push query over
// a million partitions took 5 GB (about 5 KB a partition), so 1000 keeps a
// query's per-partition cost to megabytes, and is still above the
// partition count a single Kafka broker serves well.
const defaultMaxPartitions = 1000

// defaultMaxStatements is PropMaxStatements' default: far above a
// hand-written script (RUN SCRIPT sends a whole file in one request) and
// a few hundred megabytes of parse trees at most.
const defaultMaxStatements = 1000

// NormalizeProperty maps the short names users SET ('auto.offset.reset')
// to the full ksqlDB names ('ksql.streams.auto.offset.reset').
func NormalizeProperty(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, "ksql.") || strings.HasPrefix(name, "sqlstream.") ||
		name == PropBootstrap || name == PropListeners || name == PropAllowOrigin || name == PropLateTopic || name == PropIdleClose ||
		slices.Contains(topLevelProperties[:], name) {
		return name
	}
	return "ksql.streams." + name
}

// Properties is a set of engine properties with typed accessors.
type Properties map[string]string

// Int returns an integer property or def when unset or malformed.
func (p Properties) Int(key string, def int) int {
	if v, err := strconv.Atoi(p[key]); err == nil {
		return v
	}
	return def
}

// Merge returns p overlaid with over (normalized names).
func (p Properties) Merge(over map[string]string) Properties {
	out := make(Properties, len(p)+len(over))
	for k, v := range p {
		out[k] = v
	}
	for k, v := range over {
		out[NormalizeProperty(k)] = v
	}
	return out
}

// Sorted returns the property names in order.
func (p Properties) Sorted() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Option configures an Engine.
type Option func(*options)

type options struct {
	bootstrap []string
	serviceID string
	dataDir   string
	props     map[string]string
	logger    *slog.Logger
	cluster   exec.Cluster
	// createTopics: see WithCreateMissingTopics.
	createTopics bool
	// appPrefix and countQueries: see WithQTTNaming.
	appPrefix    string
	countQueries bool
	advertised   string // see WithAdvertisedListener
	// replicaFault: see WithReplicaFault.
	replicaFault func(store string, partition int32, offset int64) error
	// globalHook and globalCheck: see WithGlobalLoadHook and
	// WithGlobalPartitionCheck.
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
func WithKafkaSASL(m sasl.Mechanism) Option { return func(o *options) { o.kafkaSASL = m } }

// WithSchemaRegistry sets the schema registry of AVRO, PROTOBUF and
// JSON_SR, in place of the client ksql.schema.registry.url would build
// (tests and the QTT runner serve one in process). Default: that client,
// or none when the property is unset.
func WithSchemaRegistry(r format.SchemaRegistry) Option { return func(o *options) { o.registry = r } }

// WithAdvertisedListener sets the URL the other servers of the service id
// reach this one at (ksql.advertised.listener; the caller resolves the
// property against the bound address). Default none: this server then
// neither routes pull queries to others nor receives them.
func WithAdvertisedListener(u string) Option { return func(o *options) { o.advertised = u } }

// WithBootstrap sets the Kafka bootstrap servers. Required unless the
// engine runs on the in-memory test cluster.
func WithBootstrap(addrs []string) Option { return func(o *options) { o.bootstrap = addrs } }

// WithServiceID sets ksql.service.id. Default "default_".
func WithServiceID(id string) Option { return func(o *options) { o.serviceID = id } }

// WithDataDir sets the directory for local state. Default "./sqlstream-data/state".
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithProperties sets server properties (ksqlDB key names), overriding the
// defaults. Default none.
func WithProperties(p map[string]string) Option { return func(o *options) { o.props = p } }

// WithLogger sets the logger. Default slog.Default().
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

func (o *options) validate() error {
	if o.cluster == nil && len(o.bootstrap) == 0 {
		return fmt.Errorf("runtime: no bootstrap servers given")
	}
	if o.serviceID == "" {
		return fmt.Errorf("runtime: empty service id")
	}
	t := newPropertyTable()
	for _, k := range Properties(o.props).Sorted() {
		if err := t.check(k, o.props[k]); err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
	}
	return nil
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// WithReplicaFault sets a hook called before a standby or warmup replica
// applies each changelog record (store, partition, offset); an error it
// returns fails that apply as a store error would. For fault-injection
// tests; default none.
func WithReplicaFault(f func(store string, partition int32, offset int64) error) Option {
	return func(o *options) { o.replicaFault = f }
}
