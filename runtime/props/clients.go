package props

import (
	"math"
	"slices"
	"strings"
)

// The Kafka client settings ksqlDB passes through to Kafka Streams and
// its consumers, producers and admin clients (ksqlDB's
// KsqlConfigResolver): each is accepted bare ('acks'), under
// ksql.streams. ('ksql.streams.acks') and, for the clients it belongs to,
// under a client's prefix ('producer.acks', 'ksql.streams.consumer.
// max.poll.records'; main.consumer., restore.consumer., global.consumer.
// and admin. too), with Kafka's type, range and allowed values. Each has
// a row ksql.streams.<name> in the table, so SHOW PROPERTIES lists it
// with Kafka's default; Defaults leaves them out, so the clients see only
// what was set (an unset one keeps sqlstream's choice, its doc says
// which). The honoured ones are read into Clients (clients_config.go);
// the rest are inert, their doc says why. testdata/kafkaclients.tsv lists
// the names, types, clients and defaults of Kafka 3.4's ConfigDefs (the
// Kafka of ksqlDB 0.29), each with the class it comes from;
// TestKafkaClientChecklist fails when the table disagrees and pins each
// one's status.

// clientRole is which Kafka clients a setting belongs to.
type clientRole uint8

const (
	roleConsumer clientRole = 1 << iota
	roleProducer
	roleAdmin
	roleStreams // Kafka Streams' own (StreamsConfig)
	roleCommon  = roleConsumer | roleProducer | roleAdmin
)

// rolePrefixes are the client prefixes Kafka Streams and ksqlDB accept
// before a client's setting, and the clients each may prefix.
var rolePrefixes = []struct {
	prefix string
	role   clientRole
}{
	{"main.consumer.", roleConsumer}, {"restore.consumer.", roleConsumer}, {"global.consumer.", roleConsumer},
	{"consumer.", roleConsumer}, {"producer.", roleProducer}, {"admin.", roleAdmin},
}

// clientBase splits a normalized ksql.streams. name into the client
// setting it names and the client role its prefix allows (roleCommon |
// roleStreams without one); ok false for a name outside ksql.streams.
func clientBase(full string) (base string, role clientRole, ok bool) {
	rest, ok := strings.CutPrefix(full, "ksql.streams.")
	if !ok {
		return "", 0, false
	}
	for _, p := range rolePrefixes {
		if b, cut := strings.CutPrefix(rest, p.prefix); cut {
			return b, p.role, true
		}
	}
	return rest, roleCommon | roleStreams, true
}

// lookupClient resolves a normalized name as a Kafka client setting: the
// row of its base name when the prefix's client has it.
func (t Table) lookupClient(full string) (*Def, bool) {
	base, role, ok := clientBase(full)
	if !ok {
		return nil, false
	}
	d, ok := t["ksql.streams."+base]
	if !ok || d.roles&role == 0 {
		return nil, false
	}
	for _, rd := range d.roleDefs {
		if role&^rd.roles == 0 {
			c := *d
			c.def = rd.def
			return &c, true
		}
	}
	return d, true
}

// roleDefault is Kafka's default of a setting for some of its clients,
// where it differs from the row's.
type roleDefault struct {
	roles clientRole
	def   string
}

// engineClientRoles are the clients of the Kafka settings that have an
// engine row of their own (table.go, security.go): a client's prefix is
// accepted before them only for those clients (consumer.session.timeout.ms,
// not producer.session.timeout.ms, as Kafka's ConfigDefs have them). An
// engine row of Kafka Streams alone (commit.interval.ms, …) takes no
// prefix.
var engineClientRoles = map[string]clientRole{
	SecProtocol: roleCommon | roleStreams, SASLMechanism: roleCommon, SASLJAAS: roleCommon,
	TrustLocation: roleCommon, TrustType: roleCommon, TrustPassword: roleCommon,
	KeyLocation: roleCommon, KeyType: roleCommon, KeyPassword: roleCommon, KeyKeyPassword: roleCommon,
	EndpointIdent: roleCommon, SessionTimeout: roleConsumer, OffsetReset: roleConsumer,
}

// cdef is a client setting's row, inert until honoured says otherwise;
// a number has Kafka's lower bound (or none: math.MinInt64).
func cdef(name string, roles clientRole, kind propKind, def string, min int64, doc string) *Def {
	return &Def{name: "ksql.streams." + name, kind: kind, def: def, min: min, roles: roles, client: true, inert: true, doc: doc}
}

// honoured marks a client setting sqlstream applies to its clients
// (Clients reads it).
func honoured(d *Def) *Def { d.inert = false; return d }

// inertClient is a client setting accepted with no effect, for why.
func inertClient(name string, roles clientRole, kind propKind, def string, min int64, why string) *Def {
	return cdef(name, roles, kind, def, min, why)
}

// withRoleDefault gives d Kafka's other default under the prefixes of
// roles (receive.buffer.bytes is 65536 for the consumer and admin
// client, 32768 for the producer).
func withRoleDefault(d *Def, roles clientRole, def string) *Def {
	d.roleDefs = append(d.roleDefs, roleDefault{roles, def})
	return d
}

// withMax gives a number Kafka's upper bound.
func withMax(d *Def, max int64) *Def { d.max = max; return d }

// upgradeFrom are Kafka Streams 3.4's upgrade.from values.
var upgradeFrom = []string{"0.10.0", "0.10.1", "0.10.2", "0.11.0", "1.0", "1.1", "2.0", "2.1", "2.2", "2.3",
	"2.4", "2.5", "2.6", "2.7", "2.8", "3.0", "3.1", "3.2", "3.3"}

// enumClient is a client setting with Kafka's allowed values.
func enumClient(d *Def, values ...string) *Def {
	d.kind, d.values = kindEnum, values
	return d
}

// clientDefs are the Kafka client and Kafka Streams settings without a
// row of the engine's own (commit.interval.ms, session.timeout.ms, the
// security ones and the rest are in table.go and security.go).
func clientDefs() []*Def {
	return slices.Concat(honouredClientDefs(), inertCommonDefs(), inertConsumerDefs(), inertProducerDefs(), inertStreamsDefs())
}

const none = math.MinInt64

func honouredClientDefs() []*Def {
	return []*Def{
		honoured(enumClient(cdef("acks", roleProducer, kindString, "all", none,
			"acknowledgements a write waits for: all (-1), 1 (the leader) or 0 (none); 0 and 1 turn idempotence off unless enable.idempotence=true (refused with them, as Kafka's producer refuses it); exactly_once_v2 always uses all"), "all", "-1", "0", "1")),
		honoured(cdef("enable.idempotence", roleProducer, kindBool, "true", none,
			"idempotent writes (franz-go's default); false: writes may be duplicated on retries; exactly_once_v2 always writes idempotently")),
		honoured(enumClient(cdef("compression.type", roleProducer, kindString, "none", none,
			"compression of the record batches queries write: none (Kafka's default, also when unset), gzip, snappy, lz4 or zstd"), "none", "gzip", "snappy", "lz4", "zstd")),
		honoured(cdef("linger.ms", roleProducer, kindLong, "0", 0,
			"milliseconds a query's writes wait to fill a batch (unset: 5)")),
		honoured(cdef("batch.size", roleProducer, kindInt, "16384", 0,
			"largest record batch a query writes, in bytes (unset: franz-go's 1000012; below 512, franz-go's least, 512)")),
		honoured(cdef("max.request.size", roleProducer, kindInt, "1048576", 0,
			"largest request the clients write to a broker, in bytes (unset: franz-go's 100 MiB; at least 1 KiB and the batch size)")),
		honoured(cdef("delivery.timeout.ms", roleProducer, kindInt, "120000", 0,
			"milliseconds a write may take, retries included, before it fails the query (unset: no bound)")),
		honoured(withRoleDefault(cdef("retries", roleProducer|roleAdmin|roleStreams, kindInt, "2147483647", 0,
			"retries of a failed write before it fails the query (admin.retries has no effect: the engine's admin requests take no query's settings)"), roleStreams, "0")),
		honoured(cdef("max.poll.records", roleConsumer, kindInt, "500", 1,
			"most records a persistent query processes per poll (unset: 10000); the main consumer's: the restore and global consumers apply whole fetches")),
		honoured(cdef("fetch.max.bytes", roleConsumer, kindInt, "52428800", 0,
			"most bytes one fetch returns (franz-go's default is the same)")),
		honoured(cdef("max.partition.fetch.bytes", roleConsumer, kindInt, "1048576", 0,
			"most bytes one fetch returns of a partition (unset: franz-go's, the fetch's bound)")),
		honoured(cdef("fetch.min.bytes", roleConsumer, kindInt, "1", 0,
			"fewest bytes a broker waits for before answering a fetch")),
		honoured(cdef("fetch.max.wait.ms", roleConsumer, kindInt, "500", 0,
			"longest a broker waits for fetch.min.bytes before answering a fetch (unset: franz-go's 5000)")),
		honoured(enumClient(cdef("isolation.level", roleConsumer, kindString, "read_uncommitted", none,
			"which records the queries read: read_committed or read_uncommitted (unset: read_committed, so aborted transactions are never read; exactly_once_v2 always reads committed); the main consumer's: the restore and global consumers always read committed"), "read_committed", "read_uncommitted")),
		honoured(cdef("heartbeat.interval.ms", roleConsumer, kindInt, "3000", 1,
			"milliseconds between a query's group heartbeats (unset: a third of session.timeout.ms, at most 3000); at least 1 (Kafka takes any: franz-go's heartbeat needs a positive interval); the main consumer's: the restore and global consumers join no group")),
		honoured(cdef("client.id", roleCommon|roleStreams, kindString, "", none,
			"the client id the queries' Kafka clients send (unset: franz-go's, kgo); read bare only: under a client's prefix it has no effect (a query's consumer and producer are one client)")),
		honoured(withRoleDefault(cdef("request.timeout.ms", roleCommon|roleStreams, kindInt, "30000", 0,
			"milliseconds a write request may wait for its acknowledgement on the broker, and the time a request may take beyond its own timeout (unset: franz-go's 10000); admin.request.timeout.ms has no effect: the engine's admin requests take no query's settings"), roleStreams, "40000")),
		honoured(cdef("metadata.max.age.ms", roleCommon|roleStreams, kindLong, "300000", 0,
			"milliseconds between the clients' metadata refreshes (franz-go's default is the same); read under the consumers' prefixes: producer. and admin. spellings have no effect (a query's consumer and producer are one client)")),
		honoured(withRoleDefault(cdef("connections.max.idle.ms", roleCommon|roleStreams, kindLong, "540000", none,
			"milliseconds an idle connection stays open (unset: franz-go's 20000); read under the consumers' prefixes: producer. and admin. spellings have no effect (a query's consumer and producer are one client)"), roleAdmin, "300000")),
		honoured(cdef("socket.connection.setup.timeout.ms", roleCommon, kindLong, "10000", none,
			"milliseconds a connection may take to open (franz-go's default is the same); read under the consumers' prefixes: producer. and admin. spellings have no effect (a query's consumer and producer are one client)")),
		honoured(cdef("allow.auto.create.topics", roleConsumer, kindBool, "true", none,
			"whether reading a missing topic asks the broker to create it (unset: it does not; a query's sources exist before it starts); the main consumer's only")),
	}
}

const (
	javaClass  = "sqlstream runs no Java plugins: the clients are franz-go's"
	noJMX      = "sqlstream's metrics are its own (GET /metrics), not JMX"
	noKerberos = "the clients authenticate with SASL PLAIN or SCRAM (" + SASLMechanism + "), not Kerberos or OAuth"
	pemOnly    = "the clients' TLS is Go's, configured from PEM files (" + TrustLocation + ", " + KeyLocation + ")"
	franzOwn   = "franz-go manages this itself"
	named      = "sqlstream names its queries' groups, clients and transactions"
	goStreams  = "sqlstream's runner is not Kafka Streams: it has no such setting"
)

func inertCommonDefs() []*Def {
	s, l, i, b := kindString, kindLong, kindInt, kindBool
	return []*Def{
		enumClient(inertClient("client.dns.lookup", roleCommon, s, "use_all_dns_ips", none, franzOwn), "use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"),
		inertClient("metric.reporters", roleCommon|roleStreams, s, "", none, noJMX),
		inertClient("metrics.num.samples", roleCommon|roleStreams, i, "2", 1, noJMX),
		enumClient(inertClient("metrics.recording.level", roleCommon|roleStreams, s, "INFO", none, noJMX), "info", "debug", "trace"),
		inertClient("metrics.sample.window.ms", roleCommon|roleStreams, l, "30000", 0, noJMX),
		inertClient("auto.include.jmx.reporter", roleCommon|roleStreams, b, "true", none, noJMX),
		withRoleDefault(inertClient("receive.buffer.bytes", roleCommon|roleStreams, i, "32768", -1, "the socket buffers are the operating system's"), roleConsumer|roleAdmin, "65536"),
		inertClient("send.buffer.bytes", roleCommon|roleStreams, i, "131072", -1, "the socket buffers are the operating system's"),
		inertClient("reconnect.backoff.ms", roleCommon|roleStreams, l, "50", 0, franzOwn),
		inertClient("reconnect.backoff.max.ms", roleCommon|roleStreams, l, "1000", 0, franzOwn),
		inertClient("retry.backoff.ms", roleCommon|roleStreams, l, "100", 0, franzOwn),
		inertClient("socket.connection.setup.timeout.max.ms", roleCommon, l, "30000", none, franzOwn),
		inertClient("security.providers", roleCommon, s, "", none, javaClass),
		inertClient("default.api.timeout.ms", roleConsumer|roleAdmin, i, "60000", 0, "each request is bounded by its statement's or query's own deadline"),
		inertClient("ssl.protocol", roleCommon, s, "TLSv1.3", none, pemOnly),
		inertClient("ssl.enabled.protocols", roleCommon, s, "TLSv1.2,TLSv1.3", none, pemOnly),
		inertClient("ssl.provider", roleCommon, s, "", none, pemOnly),
		inertClient("ssl.cipher.suites", roleCommon, s, "", none, pemOnly),
		inertClient("ssl.keymanager.algorithm", roleCommon, s, "SunX509", none, pemOnly),
		inertClient("ssl.trustmanager.algorithm", roleCommon, s, "PKIX", none, pemOnly),
		inertClient("ssl.secure.random.implementation", roleCommon, s, "", none, pemOnly),
		inertClient("ssl.engine.factory.class", roleCommon, s, "", none, javaClass),
		inertClient("ssl.keystore.certificate.chain", roleCommon, s, "", none, pemOnly),
		inertClient("ssl.keystore.key", roleCommon, s, "", none, pemOnly),
		inertClient("ssl.truststore.certificates", roleCommon, s, "", none, pemOnly),
		inertClient("sasl.kerberos.service.name", roleCommon, s, "", none, noKerberos),
		inertClient("sasl.kerberos.kinit.cmd", roleCommon, s, "/usr/bin/kinit", none, noKerberos),
		inertClient("sasl.kerberos.ticket.renew.window.factor", roleCommon, kindDouble, "0.8", none, noKerberos),
		inertClient("sasl.kerberos.ticket.renew.jitter", roleCommon, kindDouble, "0.05", none, noKerberos),
		inertClient("sasl.kerberos.min.time.before.relogin", roleCommon, l, "60000", none, noKerberos),
		inertClient("sasl.login.refresh.window.factor", roleCommon, kindDouble, "0.8", none, noKerberos),
		inertClient("sasl.login.refresh.window.jitter", roleCommon, kindDouble, "0.05", none, noKerberos),
		withMax(inertClient("sasl.login.refresh.min.period.seconds", roleCommon, kindShort, "60", 0, noKerberos), 900),
		withMax(inertClient("sasl.login.refresh.buffer.seconds", roleCommon, kindShort, "300", 0, noKerberos), 3600),
		inertClient("sasl.login.callback.handler.class", roleCommon, s, "", none, javaClass),
		inertClient("sasl.login.class", roleCommon, s, "", none, javaClass),
		inertClient("sasl.client.callback.handler.class", roleCommon, s, "", none, javaClass),
		inertClient("sasl.login.connect.timeout.ms", roleCommon, i, "", none, noKerberos),
		inertClient("sasl.login.read.timeout.ms", roleCommon, i, "", none, noKerberos),
		inertClient("sasl.login.retry.backoff.ms", roleCommon, l, "100", none, noKerberos),
		inertClient("sasl.login.retry.backoff.max.ms", roleCommon, l, "10000", none, noKerberos),
		inertClient("sasl.oauthbearer.scope.claim.name", roleCommon, s, "scope", none, noKerberos),
		inertClient("sasl.oauthbearer.sub.claim.name", roleCommon, s, "sub", none, noKerberos),
		inertClient("sasl.oauthbearer.token.endpoint.url", roleCommon, s, "", none, noKerberos),
		inertClient("sasl.oauthbearer.jwks.endpoint.url", roleCommon, s, "", none, noKerberos),
		inertClient("sasl.oauthbearer.jwks.endpoint.refresh.ms", roleCommon, l, "3600000", none, noKerberos),
		inertClient("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", roleCommon, l, "100", none, noKerberos),
		inertClient("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", roleCommon, l, "10000", none, noKerberos),
		inertClient("sasl.oauthbearer.clock.skew.seconds", roleCommon, i, "30", none, noKerberos),
		inertClient("sasl.oauthbearer.expected.audience", roleCommon, s, "", none, noKerberos),
		inertClient("sasl.oauthbearer.expected.issuer", roleCommon, s, "", none, noKerberos),
	}
}

func inertConsumerDefs() []*Def {
	c, s, i, b := roleConsumer, kindString, kindInt, kindBool
	return []*Def{
		inertClient("group.id", c, s, "", none, named),
		inertClient("group.instance.id", c, s, "", none, "query members are dynamic: a restarted server rejoins and the task balancer keeps its tasks"),
		inertClient("max.poll.interval.ms", c, i, "300000", 1, "a query polls between rounds of bounded work; no member is expelled for a slow poll"),
		inertClient("enable.auto.commit", c, b, "true", none, "a query commits its offsets with its stores and outputs, never automatically"),
		inertClient("auto.commit.interval.ms", c, i, "5000", 0, "a query commits every "+CommitInterval),
		inertClient("partition.assignment.strategy", c, s, "org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor", none, "a query's partitions are placed by its task balancer"),
		inertClient("check.crcs", c, b, "true", none, "franz-go always checks record batch CRCs"),
		inertClient("key.deserializer", c, s, "", none, "keys are read in the source's KEY_FORMAT"),
		inertClient("value.deserializer", c, s, "", none, "values are read in the source's VALUE_FORMAT"),
		inertClient("interceptor.classes", c|roleProducer, s, "", none, javaClass),
		inertClient("exclude.internal.topics", c, b, "true", none, "queries read only the topics they name"),
		inertClient("client.rack", c, s, "", none, "sqlstream fetches from partition leaders only"),
	}
}

func inertProducerDefs() []*Def {
	p, s, l, i, b := roleProducer, kindString, kindLong, kindInt, kindBool
	return []*Def{
		inertClient("buffer.memory", p, l, "33554432", 0, "a query's writes are bounded by its commit: outputs are acknowledged before each commit"),
		inertClient("max.block.ms", p, l, "60000", 0, franzOwn),
		inertClient("max.in.flight.requests.per.connection", p, i, "5", 1, franzOwn+" (idempotent writes keep at most 5 in flight)"),
		inertClient("transactional.id", p, s, "", none, named),
		inertClient("transaction.timeout.ms", p, i, "60000", none, "exactly_once_v2's transactions end every commit interval"),
		inertClient("partitioner.class", p, s, "", none, "records are partitioned as Kafka's default partitioner does (murmur2 of the key)"),
		inertClient("partitioner.ignore.keys", p, b, "false", none, "records are always partitioned by key"),
		inertClient("partitioner.adaptive.partitioning.enable", p, b, "true", none, "records are always partitioned by key"),
		inertClient("partitioner.availability.timeout.ms", p, l, "0", 0, "records are always partitioned by key"),
		inertClient("key.serializer", p, s, "", none, "keys are written in the sink's KEY_FORMAT"),
		inertClient("value.serializer", p, s, "", none, "values are written in the sink's VALUE_FORMAT"),
		inertClient("metadata.max.idle.ms", p, l, "300000", 5000, franzOwn),
	}
}

func inertStreamsDefs() []*Def {
	st, s, l, i := roleStreams, kindString, kindLong, kindInt
	return []*Def{
		inertClient("application.id", st, s, "", none, named),
		inertClient("application.server", st, s, "", none, "servers find each other by "+AdvertisedListener),
		inertClient("buffered.records.per.partition", st, i, "1000", none, goStreams),
		enumClient(inertClient("built.in.metrics.version", st, s, "latest", none, noJMX), "latest"),
		inertClient("default.deserialization.exception.handler", st, s, "org.apache.kafka.streams.errors.LogAndFailExceptionHandler", none, javaClass),
		inertClient("default.production.exception.handler", st, s, "org.apache.kafka.streams.errors.DefaultProductionExceptionHandler", none, javaClass),
		inertClient("default.key.serde", st, s, "", none, javaClass),
		inertClient("default.value.serde", st, s, "", none, javaClass),
		inertClient("default.list.key.serde.inner", st, s, "", none, javaClass),
		inertClient("default.list.key.serde.type", st, s, "", none, javaClass),
		inertClient("default.list.value.serde.inner", st, s, "", none, javaClass),
		inertClient("default.list.value.serde.type", st, s, "", none, javaClass),
		enumClient(inertClient("default.dsl.store", st, s, "rocksDB", none, "state stores are Pebble's"), "rocksdb", "in_memory"),
		inertClient("rocksdb.config.setter", st, s, "", none, "state stores are Pebble's"),
		inertClient("poll.ms", st, l, "100", none, "a query polls until its next commit or punctuation is due"),
		inertClient("replication.factor", st, i, "-1", none, "internal topics' replication is "+InternalReplicas),
		inertClient("state.cleanup.delay.ms", st, l, "600000", none, "a task's state is dropped when its query is"),
		inertClient("task.timeout.ms", st, l, "300000", 0, "a task's errors are classified (retry, restore, fatal) without a timeout"),
		enumClient(inertClient("upgrade.from", st, s, "", none, "commands keep the plan they were recorded with"), upgradeFrom...),
		inertClient("window.size.ms", st, l, "", none, javaClass),
		inertClient("windowed.inner.class.serde", st, s, "", none, javaClass),
		inertClient("rack.aware.assignment.tags", st, s, "", none, "the task balancer has no racks"),
		inertClient("statestore.cache.max.bytes", st, l, "10485760", 0, "each store's cache is "+CacheBytes),
		inertClient("repartition.purge.interval.ms", st, l, "30000", 0, "repartition topics are compacted by their retention"),
		inertClient("windowstore.changelog.additional.retention.ms", st, l, "86400000", none, "a windowed store's changelog keeps its windows' retention plus one day (Kafka's default), not configurable"),
	}
}
