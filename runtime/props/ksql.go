package props

import "math"

// The rest of ksqlDB's KsqlConfig: every ksql.* setting it defines that
// the engine's own rows (table.go, cluster.go, security.go) do not. Each
// row is one of three answers (Def.Status):
//
//   - honoured: it does here what it does in ksqlDB;
//   - inert: accepted, as ksqlDB accepts it, with no effect here (the doc
//     says why: the feature is one sqlstream does differently or not at
//     all, or sqlstream always behaves as the default);
//   - refused: any value but ksqlDB's default is refused with a message
//     naming the property and saying why (Def.refused), so a ksqlDB
//     configuration file left at its defaults still starts a server.
//
// testdata/ksqlconfig lists KsqlConfig's names and defaults;
// TestKsqlConfigChecklist fails when one has no row here.

// inertDef is a setting accepted with no effect; a number may be any
// (ksqlDB's ConfigDef has no validator for these).
func inertDef(name string, kind propKind, def, doc string) *Def {
	return &Def{name: name, kind: kind, def: def, min: math.MinInt64, inert: true, doc: doc}
}

// refusedDef is a setting accepted only at ksqlDB's default (def); any
// other value is refused for the reason given.
func refusedDef(name string, kind propKind, def, reason string) *Def {
	return &Def{name: name, kind: kind, def: def, refused: reason, doc: "any value but " + shownDefault(def) + " is refused: " + reason}
}

func shownDefault(def string) string {
	if def == "" {
		return "unset"
	}
	return def
}

// ksqlImmutable says whether ksqlDB's ImmutableProperties keeps the
// setting from SET: it is the server's here too.
func ksqlImmutable(name string) bool {
	switch name {
	case "ksql.extension.dir", ActiveQueryLimit, "ksql.pull.queries.enable", "ksql.hidden.topics",
		"ksql.readonly.topics", "ksql.source.table.materialization.enabled", "ksql.headers.columns.enabled":
		return true
	}
	return false
}

// ksqlDefs are KsqlConfig's settings without a row elsewhere.
func ksqlDefs() []*Def {
	defs := ksqlSettings()
	for _, d := range defs {
		if ksqlImmutable(d.name) {
			d.fixed, d.immutable = true, true
		}
	}
	return defs
}

func ksqlSettings() []*Def {
	const (
		noJava     = "sqlstream runs no Java plugins"
		noAuthz    = "sqlstream has no authorizer: the Kafka and HTTP credentials decide what a user may do"
		noShared   = "each persistent query runs its own tasks; there are no shared runtimes"
		noPushV2   = "sqlstream serves scalable push queries as other push queries"
		noPullPool = "pull queries run on the request's goroutine; there is no thread pool or queue to size"
		noRate     = "sqlstream has no pull or push query rate limits"
		noTransien = "transient queries leave no internal topics or state behind to clean up"
		noMetrics  = "sqlstream's metrics are its own (GET /metrics), not JMX"
		overrides  = "which properties a client may SET is the table's fixed column, not a list"
		current    = "sqlstream implements only ksqlDB's current behaviour, the default"
	)
	return []*Def{
		{name: OutputTopicPrefix, kind: kindString,
			doc: "put before the name of the topic CREATE … AS SELECT makes when its WITH names no KAFKA_TOPIC"},
		{name: CreateOrReplace, kind: kindEnum, values: []string{"true", "false"}, def: "true",
			doc: "CREATE OR REPLACE is allowed (false: refused, as ksqlDB refuses it)"},
		{name: ActiveQueryLimit, kind: kindInt, min: 0, def: "2147483647", fixed: true,
			doc: "most persistent queries the server runs; a CREATE … AS SELECT or INSERT INTO … SELECT past it is refused (replayed commands are not)"},
		{name: InsertValues, kind: kindEnum, values: []string{"true", "false"}, def: "true",
			doc: "INSERT INTO … VALUES is allowed (false: refused, as ksqlDB refuses it)"},
		refusedDef("ksql.fail.on.production.error", kindBool, "true", "a record the producer cannot write fails the query's task; sqlstream never drops it"),
		inertDef("ksql.access.validator.enable", kindString, "auto", noAuthz),
		inertDef("ksql.admin.request.retry.timeout.ms", kindLong, "2500", "admin requests are franz-go's, retried by its own policy"),
		inertDef("ksql.authorization.cache.expiry.time.secs", kindLong, "30", noAuthz),
		inertDef("ksql.authorization.cache.max.entries", kindLong, "10000", noAuthz),
		refusedDef("ksql.cast.strings.preserve.nulls", kindBool, "true", current),
		inertDef("ksql.client.ip_port.configuration.enabled", kindBool, "false", "the HTTP server does not tell queries the client's address"),
		refusedDef("ksql.connect.request.headers.plugin", kindString, "", noJava),
		{name: ConnectTimeout, kind: kindLong, min: 1, def: "5000", fixed: true,
			doc: "milliseconds each request to Kafka Connect may take (a connector statement tries up to three times)"},
		{name: ConnectURL, kind: kindString, def: DefaultConnectURL, fixed: true,
			doc: "the Kafka Connect REST URL that CREATE, DROP, DESCRIBE and SHOW CONNECTOR(S) are sent to, as ksqlDB sends them (empty: connector statements are refused)"},
		inertDef("ksql.connect.worker.config", kindString, "", "sqlstream runs no embedded Kafka Connect worker: connector statements go to the cluster at ksql.connect.url"),
		refusedDef("ksql.create.topic.inherit.source.replicas.enabled", kindBool, "true", "a new sink topic always takes its source topic's replication factor"),
		inertDef("ksql.deployment.type", kindString, "selfManaged", "Confluent Cloud's deployment switch"),
		inertDef("ksql.endpoint.migrate.query", kindBool, "true", "ksqlDB's switch between its old and new /query endpoint code"),
		inertDef("ksql.error.classifier.regex", kindString, "", "errors are classified by their Go type (user, external, internal), not by message patterns"),
		refusedDef("ksql.extension.dir", kindString, "ext", "sqlstream loads no UDF jars; functions are built in"),
		inertDef("ksql.fetch.remote.hosts.max.timeout.seconds", kindLong, "10", "SHOW QUERIES EXTENDED reads other servers' states from their heartbeats and lag reports"),
		refusedDef("ksql.headers.columns.enabled", kindBool, "true", "HEADERS columns are always allowed"),
		inertDef("ksql.hidden.topics", kindString, ksqlHiddenTopics,
			"SHOW TOPICS hides Kafka's own topics, names starting with _ and queries' internal topics (ksqlDB's default list and more)"),
		inertDef("ksql.internal.topic.min.insync.replicas", kindInt, "1", "internal topics are created without a min.insync.replicas of their own: the broker's applies"),
		inertDef("ksql.json_sr.converter.deserializer.enabled", kindBool, "true", "JSON_SR is read with sqlstream's own deserializer"),
		inertDef("ksql.kafka.client.additional.config.prefixes", kindString, "", "Kafka clients are franz-go's, configured from the table's settings only"),
		refusedDef("ksql.lambdas.enabled", kindBool, "true", "lambda functions are always allowed"),
		inertDef("ksql.metastore.backup.location", kindString, "", "the command topic is the metastore; back it up with Kafka's tools"),
		refusedDef("ksql.metrics.extension", kindString, "", noJava),
		inertDef("ksql.metrics.tags.custom", kindString, "", noMetrics),
		refusedDef("ksql.nested.error.set.null", kindBool, "true", current),
		inertDef("ksql.properties.overrides.allowlist", kindString, "", overrides),
		inertDef("ksql.properties.overrides.denylist", kindString, "", overrides),
		inertDef("ksql.properties.overrides.log", kindBool, "false", "overrides are recorded with each statement in the command topic"),
		inertDef("ksql.properties.overrides.range.validation.log.enabled", kindBool, "false", "every override's value is validated and a bad one refused"),
		inertDef("ksql.properties.overrides.validation.mode", kindString, "denylist", overrides),
		inertDef("ksql.properties.overrides.validation.restore.enabled", kindBool, "false", overrides),
		inertDef("ksql.proxy.protocol.local.mode.enabled", kindBool, "false", "the HTTP server does not read the PROXY protocol"),
		refusedDef("ksql.pull.queries.enable", kindBool, "true", "pull queries are always allowed"),
		inertDef("ksql.query.cleanup.shutdown.timeout.ms", kindLong, "30000", "bounds ksqlDB's background cleanup of terminated queries; sqlstream's wait for a query to stop is "+ShutdownTimeout),
		inertDef("ksql.query.error.max.queue.size", kindInt, "10", "a query's errors are kept in the processing log and its state, not a queue"),
		inertDef("ksql.query.persistent.max.bytes.buffering.total", kindLong, "-1", "each store's cache is bounded by "+CacheBytes+"; there is no total bound"),
		inertDef("ksql.query.pull.coordinator.queue.capacity", kindInt, "2147483647", noPullPool),
		inertDef("ksql.query.pull.forwarding.timeout.ms", kindLong, "20000", "a forwarded pull query is bounded by its request's context"),
		inertDef("ksql.query.pull.interpreter.enabled", kindBool, "true", "expressions are always interpreted"),
		inertDef("ksql.query.pull.max.concurrent.requests", kindInt, "2147483647", noRate),
		inertDef("ksql.query.pull.max.hourly.bandwidth.megabytes", kindInt, "2147483647", noRate),
		inertDef("ksql.query.pull.max.qps", kindInt, "2147483647", noRate),
		inertDef("ksql.query.pull.metrics.enabled", kindBool, "true", noMetrics),
		inertDef("ksql.query.pull.router.queue.capacity", kindInt, "2147483647", noPullPool),
		inertDef("ksql.query.pull.router.thread.pool.size", kindInt, "50", noPullPool),
		inertDef("ksql.query.pull.thread.pool.size", kindInt, "50", noPullPool),
		inertDef("ksql.query.push.v2.alos.enabled", kindBool, "true", noPushV2),
		inertDef("ksql.query.push.v2.catchup.consumer.msg.window", kindLong, "50", noPushV2),
		inertDef("ksql.query.push.v2.continuation.tokens.enabled", kindBool, "false", noPushV2),
		inertDef("ksql.query.push.v2.interpreter.enabled", kindBool, "true", noPushV2),
		inertDef("ksql.query.push.v2.latest.reset.age.ms", kindLong, "30000", noPushV2),
		inertDef("ksql.query.push.v2.max.catchup.consumers", kindInt, "5", noPushV2),
		inertDef("ksql.query.push.v2.max.hourly.bandwidth.megabytes", kindInt, "2147483647", noRate),
		inertDef("ksql.query.push.v2.metrics.enabled", kindBool, "true", noMetrics),
		inertDef("ksql.query.push.v2.new.latest.delay.ms", kindLong, "5000", noPushV2),
		inertDef("ksql.query.push.v2.registry.installed", kindBool, "false", noPushV2),
		inertDef("ksql.query.retry.backoff.initial.ms", kindLong, "15000", "a failed query's tasks are retried by the error class (retry, restore, fatal), not on a backoff timer"),
		inertDef("ksql.query.retry.backoff.max.ms", kindLong, "900000", "a failed query's tasks are retried by the error class (retry, restore, fatal), not on a backoff timer"),
		inertDef("ksql.query.status.running.threshold.seconds", kindInt, "300", "a query's state is its tasks' state, with no grace period"),
		inertDef("ksql.query.transient.max.bytes.buffering.total", kindLong, "-1", "each store's cache is bounded by "+CacheBytes+"; there is no total bound"),
		inertDef("ksql.queryanonymizer.cluster_namespace", kindString, "", "sqlstream logs no anonymized queries"),
		inertDef("ksql.queryanonymizer.logs_enabled", kindBool, "true", "sqlstream logs no anonymized queries"),
		inertDef("ksql.readonly.topics", kindString, ksqlHiddenTopics, "sqlstream keeps no list of read-only topics: CREATE SOURCE STREAM|TABLE makes a source read-only"),
		refusedDef("ksql.resource.extension.class", kindString, "", noJava),
		refusedDef("ksql.runtime.feature.shared.enabled", kindBool, "false", noShared),
		refusedDef("ksql.security.extension.class", kindString, "", noJava),
		inertDef("ksql.shared.runtimes.count", kindInt, "2", noShared),
		inertDef("ksql.sink.window.change.log.additional.retention", kindLong, "1000000", "a windowed store's changelog keeps its windows for their retention"),
		refusedDef("ksql.source.table.materialization.enabled", kindBool, "true", "a CREATE SOURCE TABLE is always materialized"),
		inertDef("ksql.suppress.buffer.size.bytes", kindLong, "-1", "EMIT FINAL keeps open windows in the state store, not a memory buffer"),
		refusedDef("ksql.suppress.enabled", kindBool, "true", "EMIT FINAL is always allowed"),
		inertDef("ksql.transient.prefix", kindString, "transient_", "push queries' consumer groups are named by sqlstream"),
		inertDef("ksql.transient.query.cleanup.service.enable", kindBool, "true", noTransien),
		inertDef("ksql.transient.query.cleanup.service.initial.delay.seconds", kindInt, "600", noTransien),
		inertDef("ksql.transient.query.cleanup.service.period.seconds", kindInt, "600", noTransien),
		inertDef("ksql.udf.collect.metrics", kindBool, "false", "sqlstream loads no UDF jars; functions are built in"),
		inertDef("ksql.udfs.enabled", kindBool, "true", "sqlstream loads no UDF jars; functions are built in"),
		inertDef("ksql.websocket.connection.max.timeout.ms", kindLong, "3600000", "a websocket push query lasts until the client closes it or the query ends"),
	}
}

// ksqlHiddenTopics is the default of ksqlDB's ksql.hidden.topics and
// ksql.readonly.topics.
const ksqlHiddenTopics = "_confluent.*,__confluent.*,_schemas,__consumer_offsets,__transaction_state,connect-configs,connect-offsets,connect-status,connect-statuses"
