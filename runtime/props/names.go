package props

import (
	"github.com/sqlstream/sqlstream/internal/gcpacing"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/functions"
)

// The names of the properties the engine reads: ksqlDB's where ksqlDB has
// the setting, sqlstream.* (or a bare name) where it is sqlstream's own.
// Every name is declared here and nowhere else; the table (table.go)
// gives each its type, default and meaning.
const (
	ServiceID        = "ksql.service.id"
	NumThreads       = "ksql.streams.num.stream.threads"
	CommitInterval   = "ksql.streams.commit.interval.ms"
	OffsetReset      = "ksql.streams.auto.offset.reset"
	Guarantee        = "ksql.streams.processing.guarantee"
	KeyFormat        = "ksql.persistence.default.format.key"
	ValueFormat      = "ksql.persistence.default.format.value"
	FailOnDeserError = "ksql.fail.on.deserialization.error"
	InternalReplicas = "ksql.internal.topic.replicas"
	// VarSubstitution turns ${name} substitution off ("false") for a
	// session or request; ksqlDB's default is on.
	VarSubstitution  = "ksql.variable.substitution.enable"
	Bootstrap        = "bootstrap.servers"
	Listeners        = "listeners"
	AllowOrigin      = "access.control.allow.origin" // web origins whose pages may POST to the API
	StateDir         = "ksql.streams.state.dir"
	WrapSingle       = "ksql.persistence.wrap.single.values"
	CacheBytes       = "ksql.streams.cache.max.bytes.buffering"
	CollectListLimit = "ksql.functions.collect_list.limit"
	CollectSetLimit  = "ksql.functions.collect_set.limit"
	ThrowOnInvalidTS = "ksql.timestamp.throw.on.invalid"
	// LateTopic is sqlstream's own: a topic that receives, as dead
	// letters, the input records a windowed aggregation dropped because
	// their window had closed.
	LateTopic = "late.records.topic"
	// IdleClose is sqlstream's own: after this many milliseconds of
	// wall-clock time without records, EMIT FINAL windows of a quiet
	// partition close anyway (default 0: off, as in ksqlDB).
	IdleClose = "window.close.idle.ms"
	// ShutdownTimeout bounds the wait for a query to stop (TERMINATE,
	// DROP, server shutdown); see EngineConfig.ShutdownTimeout.
	ShutdownTimeout = "ksql.streams.shutdown.timeout.ms"
	// MaxPushQueries caps the push queries running at once.
	MaxPushQueries = "ksql.max.push.queries"
	// MaxWindowsPerRecord and MaxResultBytes are sqlstream's own bounds
	// on the work one record causes (see the table).
	MaxWindowsPerRecord = "sqlstream.window.max.per.record"
	MaxResultBytes      = functions.ResultProperty
	// MaxPartitions is sqlstream's own: the largest partition count
	// CREATE may give a new topic (and the embedded broker accepts).
	MaxPartitions = "sqlstream.topic.partitions.max"
	// TopicNaming is sqlstream's own: "sqlstream" (the default:
	// application ids <service id>query_<query id>) or "ksqldb" (ksqlDB's
	// _confluent-ksql-<service id>query_<query id>).
	TopicNaming = "sqlstream.internal.topic.naming"
	// PersistentPrefix is ksqlDB's ksql.persistent.prefix, "query_":
	// what a persistent query's application id puts before its id.
	PersistentPrefix = "ksql.persistent.prefix"
	// MaxStatements is sqlstream's own: the most statements one /ksql
	// request may hold (ksqlDB has no limit; a request of 10,000 took
	// 3 GB to parse, as every statement is parsed before the first runs).
	MaxStatements = "sqlstream.request.max.statements"
	// MaxTaskIdle is Kafka Streams' max.task.idle.ms: how long a task
	// that reads several partitions (a join's, or a repartitioned input's
	// with another) waits, once an empty input partition is caught up to
	// its end, for records to arrive there before it processes the others
	// anyway. 0 (the default since Kafka Streams 3.0) waits for no new
	// data, only for data already on the broker to be fetched; -1 never
	// waits.
	MaxTaskIdle = "ksql.streams.max.task.idle.ms"
	// OutputTopicPrefix is put before the topic name CREATE … AS SELECT
	// derives from the new source's name (ksqlDB's, default "").
	OutputTopicPrefix = "ksql.output.topic.name.prefix"
	// CreateOrReplace and InsertValues turn CREATE OR REPLACE and INSERT
	// INTO … VALUES off ("false"); both are on by default, as in ksqlDB.
	CreateOrReplace = "ksql.create.or.replace.enabled"
	InsertValues    = "ksql.insert.into.values.enabled"
	// ActiveQueryLimit caps the persistent queries a server runs (the
	// server's; default: no cap, as in ksqlDB).
	ActiveQueryLimit = "ksql.query.persistent.active.limit"
)

// Scale-out (Kafka Streams' names under ksql.streams.): the group
// member's session timeout, and the standby and warmup replicas of the
// task balancer.
const (
	SessionTimeout  = "ksql.streams.session.timeout.ms"
	Standbys        = "ksql.streams.num.standby.replicas"
	RecoveryLag     = "ksql.streams.acceptable.recovery.lag"
	MaxWarmups      = "ksql.streams.max.warmup.replicas"
	ProbingInterval = "ksql.streams.probing.rebalance.interval.ms"
)

// Properties of a server among others of its service id (issue 12).
const (
	// AdvertisedListener is the URL the other servers call this one at;
	// default: the address the HTTP API is bound to.
	AdvertisedListener = "ksql.advertised.listener"
	HeartbeatEnable    = "ksql.heartbeat.enable"
	HeartbeatInterval  = "ksql.heartbeat.send.interval.ms"
	HeartbeatWindow    = "ksql.heartbeat.window.ms"
	LagReportEnable    = "ksql.lag.reporting.enable"
	LagReportInterval  = "ksql.lag.reporting.send.interval.ms"
	StandbyReads       = "ksql.query.pull.enable.standby.reads"
	MaxOffsetLag       = "ksql.query.pull.max.allowed.offset.lag"
)

// Pull and push queries.
const (
	// PullTableScan and PullRangeScan are the pull-query WHERE rules
	// (both on by default, as in ksqlDB).
	PullTableScan = "ksql.query.pull.table.scan.enabled"
	PullRangeScan = "ksql.query.pull.range.scan.enabled"
	// PullLimit allows LIMIT in pull queries (on by default).
	PullLimit = "ksql.query.pull.limit.clause.enabled"
	// PullReadyWait is sqlstream's own: how long the first pull query on
	// a table waits for the table's query to be RUNNING and caught up (0:
	// never waits, as ksqlDB).
	PullReadyWait = "sqlstream.query.pull.ready.wait.ms"
	// AssertSchemaTimeout is ksqlDB's: how long an ASSERT SCHEMA without
	// TIMEOUT waits for its assertion to hold (default 1000 ms).
	AssertSchemaTimeout = "ksql.assert.schema.default.timeout.ms"
	// ConnectURL is ksqlDB's: the Kafka Connect REST URL connector
	// statements go to (default http://localhost:8083).
	ConnectURL = "ksql.connect.url"
	// DefaultConnectURL is ksql.connect.url's default, ksqlDB's.
	DefaultConnectURL = "http://localhost:8083"
	// ConnectTimeout is ksqlDB's: the timeout of each Connect request in
	// ms (default 5000).
	ConnectTimeout = "ksql.connect.request.timeout.ms"
	// AssertTopicTimeout is ksqlDB's: how long an ASSERT TOPIC without
	// TIMEOUT waits for its assertion to hold (default 1000 ms).
	AssertTopicTimeout = "ksql.assert.topic.default.timeout.ms"
	// PushV2 turns on ksqlDB's scalable push queries (off by default, as
	// in ksqlDB).
	PushV2 = "ksql.query.push.v2.enabled"
)

// The command topic (sqlstream's own).
const (
	// CommandSecret is the HMAC key of the command topic (a secret:
	// shown [hidden]).
	CommandSecret = "sqlstream.command.topic.secret"
	// CommandReplayTimeout bounds the read of the command topic at the
	// start (default 120000 ms): a transaction some client left open
	// there holds back read_committed readers until the broker aborts it,
	// and a start must not wait for that silently.
	CommandReplayTimeout = "sqlstream.command.topic.replay.timeout.ms"
)

// Schema registry properties (ksqlDB's names). They are the server's own:
// the embedded registry's URL, or an external registry's, with its
// credentials (hidden in SHOW PROPERTIES, see IsSecret).
const (
	SchemaRegistryURL      = planner.PropSchemaRegistryURL
	SchemaRegistryUserInfo = "ksql.schema.registry.basic.auth.user.info"
	SchemaRegistryTrust    = "ksql.schema.registry.ssl.truststore.location"
	SchemaRegistryKey      = "ksql.schema.registry.ssl.keystore.location"
	// The registry client's settings ksqlDB passes through: the
	// credentials' source (USER_INFO only), the store types (PEM only) and
	// the store passwords (PEM files have none; hidden).
	SchemaRegistryCredSource = "ksql.schema.registry.basic.auth.credentials.source"
	SchemaRegistryTrustType  = "ksql.schema.registry.ssl.truststore.type"
	SchemaRegistryKeyType    = "ksql.schema.registry.ssl.keystore.type"
	SchemaRegistryTrustPass  = "ksql.schema.registry.ssl.truststore.password"
	SchemaRegistryKeyPass    = "ksql.schema.registry.ssl.keystore.password"
	SchemaRegistryKeyKeyPass = "ksql.schema.registry.ssl.key.password"
)

// Security properties: the HTTP API's authentication and TLS (read by the
// server) and the Kafka clients' TLS and SASL. All are the server's own
// (fixed) and off by default. Kafka client settings use Kafka's names,
// given bare (security.protocol) or with ksqlDB's ksql.streams. prefix;
// the HTTP listener's keystore is the same ssl.keystore.* (as in ksqlDB,
// where one file configures both).
const (
	AuthMethod     = "authentication.method"
	AuthRealm      = "authentication.realm"
	AuthRoles      = "authentication.roles"
	AuthUsersFile  = "sqlstream.authentication.users.file"
	SecProtocol    = "ksql.streams.security.protocol"
	SASLMechanism  = "ksql.streams.sasl.mechanism"
	SASLJAAS       = "ksql.streams.sasl.jaas.config"
	TrustLocation  = "ksql.streams.ssl.truststore.location"
	TrustType      = "ksql.streams.ssl.truststore.type"
	TrustPassword  = "ksql.streams.ssl.truststore.password"
	KeyLocation    = "ksql.streams.ssl.keystore.location"
	KeyType        = "ksql.streams.ssl.keystore.type"
	KeyPassword    = "ksql.streams.ssl.keystore.password"
	KeyKeyPassword = "ksql.streams.ssl.key.password"
	EndpointIdent  = "ksql.streams.ssl.endpoint.identification.algorithm"
	CertLocation   = "sqlstream.ssl.certificate.location"
	CertKey        = "sqlstream.ssl.key.location"
)

// Other properties the table knows by name only (no code reads them
// through a constant).
const (
	BrokerListen = "sqlstream.broker.listen"
	DataDir      = "sqlstream.data.dir"
	LogLevel     = "sqlstream.log.level"
	LogFormat    = "sqlstream.log.format"
	// GCPercent and MemoryLimit are the Go garbage collector's pacing
	// (internal/gcpacing, which names them for its messages): GOGC's
	// and GOMEMLIMIT's meaning, as server settings.
	GCPercent   = gcpacing.PercentSetting
	MemoryLimit = gcpacing.LimitSetting
)

// The values of TopicNaming.
const (
	NamingSqlstream = "sqlstream"
	NamingKsqlDB    = "ksqldb"
)

// topLevel keep their name in Normalize (no ksql.streams. prefix):
// ksqlDB's REST server settings and sqlstream's bare names.
func topLevel(name string) bool {
	switch name {
	case Bootstrap, Listeners, AllowOrigin, LateTopic, IdleClose, AuthMethod, AuthRealm, AuthRoles:
		return true
	}
	return false
}
