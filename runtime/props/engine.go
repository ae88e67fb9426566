package props

import "time"

// EngineConfig is what the engine reads of the server's properties,
// parsed once when the engine starts; the defaults are the table's. A
// client's SET never changes it (every property here is fixed or read
// only at the start).
type EngineConfig struct {
	ServiceID string // ksql.service.id
	// KsqlDBNaming is sqlstream.internal.topic.naming=ksqldb: new
	// persistent queries' application ids start _confluent-ksql-.
	KsqlDBNaming     bool
	PersistentPrefix string // ksql.persistent.prefix

	MaxPartitions    int           // sqlstream.topic.partitions.max
	MaxStatements    int           // sqlstream.request.max.statements
	MaxPushQueries   int           // ksql.max.push.queries
	ActiveQueryLimit int           // ksql.query.persistent.active.limit
	ShutdownTimeout  time.Duration // ksql.streams.shutdown.timeout.ms
	InternalReplicas int16         // ksql.internal.topic.replicas
	// InsertValues is ksql.insert.into.values.enabled as the server has
	// it: /inserts-stream has no session (a statement's INSERT … VALUES
	// reads its session's, SessionConfig).
	InsertValues bool

	// The planner's and the functions' defaults.
	MaxResultBytes      int    // sqlstream.function.max.result.bytes
	MaxWindowsPerRecord int    // sqlstream.window.max.per.record
	KeyFormat           string // ksql.persistence.default.format.key
	ValueFormat         string // ksql.persistence.default.format.value ("" for none)
	WrapSingle          *bool  // ksql.persistence.wrap.single.values (nil: unset)
	CollectListLimit    *int   // ksql.functions.collect_list.limit (nil: unset)
	CollectSetLimit     *int   // ksql.functions.collect_set.limit (nil: unset)

	// Among the other servers of the service id.
	HeartbeatInterval time.Duration // ksql.heartbeat.send.interval.ms; 0 when ksql.heartbeat.enable=false
	HeartbeatWindow   time.Duration // ksql.heartbeat.window.ms
	LagReportInterval time.Duration // ksql.lag.reporting.send.interval.ms; 0 when ksql.lag.reporting.enable=false

	CommandSecret        string        // sqlstream.command.topic.secret ("" for none)
	CommandReplayTimeout time.Duration // sqlstream.command.topic.replay.timeout.ms

	Registry RegistryConfig
	Connect  ConnectConfig // the Kafka Connect client's (connect.go)
	Kafka    Kafka         // the Kafka clients' TLS and SASL (security.go)
}

// RegistryConfig is the schema registry client's settings (all "" when
// unset).
type RegistryConfig struct {
	URL      string // ksql.schema.registry.url
	UserInfo string // ksql.schema.registry.basic.auth.user.info
	Trust    string // ksql.schema.registry.ssl.truststore.location
	Key      string // ksql.schema.registry.ssl.keystore.location
}

// NewEngineConfig parses the server's properties over the table's
// defaults. The error, an *Error, names the first bad property.
func NewEngineConfig(t Table, props Properties) (EngineConfig, error) {
	p := NewParser(t, props)
	c := EngineConfig{
		ServiceID:            p.Str(ServiceID),
		KsqlDBNaming:         p.Str(TopicNaming) == NamingKsqlDB,
		PersistentPrefix:     p.Str(PersistentPrefix),
		MaxPartitions:        int(p.Int(MaxPartitions)),
		MaxStatements:        int(p.Int(MaxStatements)),
		MaxPushQueries:       int(p.Int(MaxPushQueries)),
		ActiveQueryLimit:     int(p.Int(ActiveQueryLimit)),
		ShutdownTimeout:      p.Millis(ShutdownTimeout),
		InternalReplicas:     int16(p.Int(InternalReplicas)),
		InsertValues:         p.Bool(InsertValues),
		MaxResultBytes:       int(p.Int(MaxResultBytes)),
		MaxWindowsPerRecord:  int(p.Int(MaxWindowsPerRecord)),
		KeyFormat:            props[KeyFormat],
		ValueFormat:          props[ValueFormat],
		HeartbeatWindow:      p.Millis(HeartbeatWindow),
		CommandSecret:        p.Str(CommandSecret),
		CommandReplayTimeout: p.Millis(CommandReplayTimeout),
		Registry: RegistryConfig{URL: p.Str(SchemaRegistryURL), UserInfo: p.Str(SchemaRegistryUserInfo),
			Trust: p.Str(SchemaRegistryTrust), Key: p.Str(SchemaRegistryKey)},
	}
	if b, ok := p.OptionalBool(WrapSingle); ok {
		c.WrapSingle = &b
	}
	c.CollectListLimit = optionalInt(p, CollectListLimit)
	c.CollectSetLimit = optionalInt(p, CollectSetLimit)
	if p.Bool(HeartbeatEnable) {
		c.HeartbeatInterval = p.Millis(HeartbeatInterval)
	}
	if p.Bool(LagReportEnable) {
		c.LagReportInterval = p.Millis(LagReportInterval)
	}
	kafka, err := parseKafka(p)
	c.Kafka = kafka
	connect, cerr := parseConnect(p)
	c.Connect = connect
	if p.Err() != nil {
		return c, p.Err()
	}
	if err == nil {
		err = cerr
	}
	return c, err
}

func optionalInt(p *Parser, name string) *int {
	n, ok := p.Optional(name)
	if !ok {
		return nil
	}
	i := int(n)
	return &i
}
