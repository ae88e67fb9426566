package runtime

import (
	"fmt"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/functions"
)

// propKind is the type of a property's value.
type propKind uint8

const (
	kindString propKind = iota
	kindInt             // a 32-bit integer, at least propertyDef.min
	kindLong            // a 64-bit integer, at least propertyDef.min
	kindBool            // true or false
	kindEnum            // one of propertyDef.values
)

var kindNames = [...]string{"STRING", "INT", "LONG", "BOOLEAN", "STRING"}

// propertyDef is one row of the property table: every property the engine
// accepts, with its type, default and meaning. The same table validates
// SET, a request's streamsProperties and the server's configuration,
// answers GET /is_valid_property, fills SHOW PROPERTIES and gives
// queryConfig its defaults.
type propertyDef struct {
	name   string
	kind   propKind
	def    string   // "" for none
	values []string // the allowed values of a kindEnum
	min    int64    // the smallest value of a kindInt or kindLong
	// fixed properties are the server's: a client may not override them.
	fixed bool
	// inert properties are accepted, as ksqlDB accepts them, and have no
	// effect in sqlstream.
	inert bool
	doc   string
}

// scope is SHOW PROPERTIES' scope column.
func (d *propertyDef) scope() string {
	if strings.HasPrefix(d.name, "ksql.streams.") {
		return "STREAMS"
	}
	return "KSQL"
}

// propertyTable is the engine's properties by full name.
type propertyTable map[string]*propertyDef

// newPropertyTable returns the table. Defaults that depend on the machine
// (num.stream.threads) are filled in here.
func newPropertyTable() propertyTable {
	t := propertyTable{}
	for _, d := range allPropertyDefs() {
		t[d.name] = d
	}
	return t
}

// allPropertyDefs is every property the engine knows: the table's own,
// the Kafka security settings, the cluster's and the schema registry's.
func allPropertyDefs() []*propertyDef {
	return append(append(append(append(propertyDefs(), securityPropertyDefs()...), clusterPropertyDefs()...), schemaRegistryPropertyDefs()...), assertSchemaPropertyDefs()...)
}

func propertyDefs() []*propertyDef {
	onOff := []string{"true", "false"}
	return []*propertyDef{
		{name: PropServiceID, kind: kindString, def: "default_", fixed: true,
			doc: "prefix of the command topic, internal topics and consumer groups"},
		{name: PropTopicNaming, kind: kindEnum, values: []string{namingSqlstream, namingKsqlDB}, def: namingSqlstream, fixed: true,
			doc: "names of new persistent queries' consumer groups and internal topics: sqlstream (<service id>query_<id>) or ksqldb (_confluent-ksql-<service id>query_<id>, as ksqlDB); a query keeps the names it was created with"},
		{name: PropPersistentPrefix, kind: kindString, def: "query_", fixed: true,
			doc: "what a new persistent query's consumer group and internal topics put between the service id and the query id, as ksqlDB's"},
		{name: PropBootstrap, kind: kindString, fixed: true, doc: "Kafka bootstrap servers"},
		{name: PropListeners, kind: kindString, fixed: true, doc: "HTTP API listeners"},
		{name: PropStateDir, kind: kindString, fixed: true, doc: "directory of the state stores"},
		{name: "sqlstream.broker.listen", kind: kindString, fixed: true, doc: "embedded broker address"},
		{name: "sqlstream.data.dir", kind: kindString, fixed: true, doc: "data directory of the process"},
		{name: PropAllowOrigin, kind: kindString, fixed: true,
			doc: "web origins (comma separated, * for any) whose pages may POST to the HTTP API besides its own"},
		{name: PropMaxPartitions, kind: kindInt, min: 1, def: strconv.Itoa(defaultMaxPartitions), fixed: true,
			doc: "largest partition count of a topic CREATE makes (and the embedded broker accepts)"},
		{name: PropMaxStatements, kind: kindInt, min: 1, def: strconv.Itoa(defaultMaxStatements), fixed: true,
			doc: "most statements one /ksql request may hold (all are parsed before the first runs); split longer scripts"},
		{name: "sqlstream.log.level", kind: kindEnum, values: []string{"debug", "info", "warn", "error"}, fixed: true,
			doc: "minimum log level"},
		{name: "sqlstream.log.format", kind: kindEnum, values: []string{"text", "json"}, fixed: true,
			doc: "log line format: text (key=value) or json (one object per line)"},
		{name: PropNumThreads, kind: kindInt, min: 1, def: strconv.Itoa(goruntime.NumCPU()),
			doc: "goroutines processing the tasks of one persistent query"},
		{name: PropCommitInterval, kind: kindLong, min: 0, def: "2000",
			doc: "milliseconds between commits (stores flushed, outputs acknowledged, offsets committed); 100 under exactly_once_v2 unless set"},
		{name: PropSessionTimeout, kind: kindInt, min: 1, def: strconv.Itoa(defaultSessionTimeoutMs),
			doc: "milliseconds a query's group member may go without heartbeats before its tasks move to other servers (the broker's group.min.session.timeout.ms bounds it below)"},
		{name: PropStandbys, kind: kindInt, min: 0, def: "0",
			doc: "warm copies of each task's stores kept on other servers, fed from the changelogs (failover restores only their lag)"},
		{name: PropRecoveryLag, kind: kindLong, min: 0, def: "10000",
			doc: "changelog records a server's copy of a task may lag and still count as caught up (a task moves only to a caught-up server)"},
		{name: PropMaxWarmups, kind: kindInt, min: 1, def: "2",
			doc: "most warmup replicas (copies catching up before their server takes the task over) in a group at once"},
		{name: PropProbingInterval, kind: kindLong, min: 1000, def: "600000",
			doc: "milliseconds between the rebalances that promote caught-up warmups (Kafka Streams' minimum is 60000; sqlstream accepts 1000)"},
		{name: PropOffsetReset, kind: kindEnum, values: []string{"latest", "earliest"}, def: "latest",
			doc: "where a query without committed offsets starts reading its sources"},
		{name: PropGuarantee, kind: kindEnum, values: []string{"at_least_once", "exactly_once_v2", "exactly_once"},
			def: "at_least_once", doc: "processing guarantee: exactly_once_v2 runs each query's outputs, changelogs and offsets in Kafka transactions (commit interval 100 ms unless set)"},
		{name: PropCacheBytes, kind: kindLong, min: 0, def: strconv.Itoa(10 << 20),
			doc: "write-back cache of each state store, in bytes (0: none)"},
		{name: PropShutdownTimeout, kind: kindLong, min: 0, def: strconv.Itoa(defaultShutdownTimeoutMs), fixed: true,
			doc: "longest wait in ms for a query to stop before TERMINATE, DROP or shutdown go on without it (ksqlDB's default is 300000)"},
		{name: PropMaxPushQueries, kind: kindInt, min: 0, def: "100", fixed: true,
			doc: "most push queries running at once; more are refused with error 40003"},
		{name: PropKeyFormat, kind: kindString, def: "KAFKA", doc: "key format when a statement gives none"},
		{name: PropValueFormat, kind: kindString, doc: "value format when a statement gives none"},
		{name: PropWrapSingle, kind: kindEnum, values: onOff, doc: "whether single-column values are wrapped in a record"},
		{name: PropFailOnDeserError, kind: kindEnum, values: onOff, def: "false",
			doc: "accepted for ksqlDB compatibility (bad records are logged and skipped)", inert: true},
		{name: PropVarSubstitution, kind: kindEnum, values: onOff, def: "true",
			doc: "whether ${name} in a statement is replaced by the variable's value (false: left as written)"},
		{name: PropInternalReplicas, kind: kindInt, min: 1, def: "1", doc: "replication factor of internal topics"},
		{name: PropCollectListLimit, kind: kindInt, min: 0, doc: "largest list COLLECT_LIST builds"},
		{name: PropCollectSetLimit, kind: kindInt, min: 0, doc: "largest array COLLECT_SET builds"},
		{name: PropMaxWindowsPerRecord, kind: kindInt, min: 1, def: strconv.Itoa(planner.DefaultMaxWindowsPerRecord), fixed: true,
			doc: "most windows one record may fall into (HOPPING SIZE / ADVANCE BY); a query past it is refused"},
		{name: PropMaxResultBytes, kind: kindInt, min: 1, def: strconv.Itoa(functions.DefaultMaxResultBytes), fixed: true,
			doc: "largest value LPAD, RPAD, REPLACE, REGEXP_REPLACE, CONCAT, CONCAT_WS, JSON_CONCAT and || build; past it the call is NULL and logged"},
		{name: PropThrowOnInvalidTS, kind: kindEnum, values: onOff, def: "false",
			doc: "an invalid TIMESTAMP column fails the query instead of skipping the record"},
		{name: PropLateTopic, kind: kindString, doc: "topic receiving the records a windowed aggregation dropped as late"},
		{name: PropMaxTaskIdle, kind: kindLong, min: -1, def: "0",
			doc: "milliseconds a join task waits for records on a caught-up empty input before processing its other inputs (0: only for fetched data; -1: never waits)"},
		{name: PropPullReadyWait, kind: kindLong, min: 0, def: strconv.Itoa(defaultPullReadyWaitMs),
			doc: "milliseconds the first pull query on a table waits for the table's query to be RUNNING and caught up with its inputs; past it the answer is error 50302 (0: answer at once, as ksqlDB)"},
		{name: PropIdleClose, kind: kindLong, min: 0, def: "0",
			doc: "milliseconds without records after which the windows of a quiet partition close (0: off)"},
		// Accepted as ksqlDB accepts them (the conformance tests set them).
		{name: PropPullTableScan, kind: kindEnum, values: onOff, def: "true",
			doc: "pull queries on tables may read the whole table; false: each OR-branch of the WHERE must look keys up"},
		{name: PropPullRangeScan, kind: kindEnum, values: onOff, def: "true",
			doc: "with table scans off, a pull query may still bound a single STRING key by <, <=, > or >="},
		{name: PropPullLimit, kind: kindEnum, values: onOff, def: "true", doc: "pull queries may have a LIMIT clause"},
		{name: PropPushV2, kind: kindEnum, values: onOff, def: "false",
			doc: "push queries ksqlDB would serve as scalable push queries are named SCALABLE_PUSH_QUERY_<uuid> (sqlstream runs them as other push queries)"},
		{name: "ksql.query.pull.stream.enabled", kind: kindEnum, values: onOff, inert: true, doc: "pull queries on streams (always on)"},
		{name: "ksql.new.query.planner.enabled", kind: kindEnum, values: onOff, inert: true, doc: "ksqlDB's planner choice"},
		{name: "ksql.windowed.session.key.legacy", kind: kindEnum, values: onOff, inert: true, doc: "ksqlDB's legacy session keys"},
		{name: "ksql.sink.partitions", kind: kindInt, min: 1, inert: true, doc: "deprecated in ksqlDB"},
		{name: "ksql.sink.replicas", kind: kindInt, min: 1, inert: true, doc: "deprecated in ksqlDB"},
		{name: "ksql.streams.topology.optimization", kind: kindString, inert: true, doc: "Kafka Streams topology optimization"},
		{name: "ksql.streams.default.timestamp.extractor", kind: kindString, inert: true, doc: "Kafka Streams timestamp extractor"},
		{name: "ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__", kind: kindLong, inert: true,
			doc: "Kafka Streams' internal EMIT FINAL check interval"},
		{name: "ksql.streams.use.exact.numeric.comparison", kind: kindEnum, values: onOff, inert: true,
			doc: "ksqlDB's numeric comparison switch"},
	}
}

// defaults returns the properties that have a default.
func (t propertyTable) defaults() Properties {
	out := Properties{}
	for name, d := range t {
		if d.def != "" {
			out[name] = d.def
		}
	}
	return out
}

// lookup returns the definition of a property (any spelling
// NormalizeProperty accepts). Function properties (ksql.functions.*) are
// open-ended, as in ksqlDB: they have no definition and are valid.
func (t propertyTable) lookup(name string) (*propertyDef, error) {
	full := NormalizeProperty(name)
	if d, ok := t[full]; ok {
		return d, nil
	}
	if strings.HasPrefix(full, "ksql.functions.") {
		return &propertyDef{name: full, kind: kindString}, nil
	}
	return nil, &PropertyError{Name: name, Problem: ProblemUnknown}
}

// check validates a value of a property the server's configuration sets.
func (t propertyTable) check(name, value string) error {
	d, err := t.lookup(name)
	if err != nil {
		return err
	}
	return d.parse(name, value)
}

// checkOverride validates a value a client sets (SET or a request's
// streamsProperties): also refused for the server's own properties.
func (t propertyTable) checkOverride(name, value string) error {
	d, err := t.lookup(name)
	if err != nil {
		return err
	}
	if d.fixed {
		return &PropertyError{Name: name, Problem: ProblemProhibited}
	}
	return d.parse(name, value)
}

// parse checks value against the property's type.
func (d *propertyDef) parse(name, value string) error {
	bad := func(reason string) error {
		return &PropertyError{Name: name, Value: value, Problem: ProblemInvalid, Reason: reason}
	}
	switch d.kind {
	case kindInt, kindLong:
		bits := 32
		if d.kind == kindLong {
			bits = 64
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, bits)
		if err != nil {
			return bad("Not a number of type " + kindNames[d.kind])
		}
		if n < d.min {
			return bad(fmt.Sprintf("Value must be at least %d", d.min))
		}
	case kindEnum:
		if !slices.Contains(d.values, strings.ToLower(strings.TrimSpace(value))) {
			return bad("String must be one of: " + strings.Join(d.values, ", "))
		}
	}
	return nil
}

// PropertyProblem says what is wrong with a property.
type PropertyProblem uint8

// Property problems.
const (
	ProblemUnknown    PropertyProblem = iota // no such property
	ProblemProhibited                        // a server property a client may not override
	ProblemInvalid                           // a value of the wrong type or out of range
)

// PropertyError is a property that may not be set, or not to that value.
// The message is ksqlDB's.
type PropertyError struct {
	Name    string
	Value   string
	Problem PropertyProblem
	Reason  string // for ProblemInvalid
}

func (e *PropertyError) Error() string {
	switch e.Problem {
	case ProblemUnknown:
		return fmt.Sprintf("Not recognizable as ksql, streams, consumer, or producer property: '%s'", e.Name)
	case ProblemProhibited:
		return fmt.Sprintf("One or more properties overrides set locally are prohibited by the KSQL server (use UNSET to reset their default value): [%s]", e.Name)
	}
	short := strings.TrimPrefix(NormalizeProperty(e.Name), "ksql.streams.")
	return fmt.Sprintf("Invalid value %s for configuration %s: %s", shownValue(e.Name, e.Value), short, e.Reason)
}

// ServerProperties returns the defaults of the property table overlaid
// with given (a server configuration), with normalized names.
func ServerProperties(given map[string]string) Properties {
	return newPropertyTable().defaults().Merge(given)
}

// CheckProperty validates one property of a server configuration (a
// --config file key): the error names the property.
func CheckProperty(name, value string) error {
	return newPropertyTable().check(name, value)
}
