package props

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
	kindInt             // a 32-bit integer, at least Def.min
	kindLong            // a 64-bit integer, at least Def.min
	kindBool            // true or false
	kindEnum            // one of Def.values
	kindDouble          // a 64-bit floating point number
	kindShort           // a 16-bit integer, at least Def.min
)

var kindNames = [...]string{"STRING", "INT", "LONG", "BOOLEAN", "STRING", "DOUBLE", "SHORT"}

// Def is one row of the property table: every property the engine
// accepts, with its type, default and meaning. The same table validates
// SET, a request's streamsProperties and the server's configuration,
// answers GET /is_valid_property, fills SHOW PROPERTIES and gives
// QueryConfig and EngineConfig their defaults.
type Def struct {
	name   string
	kind   propKind
	def    string   // "" for none
	values []string // the allowed values of a kindEnum
	min    int64    // the smallest value of a kindInt, kindLong or kindShort
	max    int64    // the largest, when not 0
	// fixed properties are the server's: a client may not override them.
	fixed bool
	// inert properties are accepted, as ksqlDB accepts them, and have no
	// effect in sqlstream.
	inert bool
	// refused is why a value other than the default is refused (""
	// when any valid value is accepted).
	refused string
	// ksqlDefault is ksqlDB's default where sqlstream's differs on
	// purpose (the doc says why); "" when they are the same.
	ksqlDefault string
	doc         string
	// client rows are Kafka client settings (clients.go): Defaults leaves
	// them out, so a client sees only what was set, and roles are the
	// clients a prefixed spelling may name (0: none; an engine row's are
	// engineClientRoles).
	client bool
	roles  clientRole
	// roleDefs are Kafka's defaults for some of the clients where they
	// differ from def (lookupClient shows them under those prefixes).
	roleDefs []roleDefault
	// immutable properties are in ksqlDB's ImmutableProperties (its
	// LocalPropertyValidator refuses them with ProblemImmutable's text);
	// they are fixed too.
	immutable bool
}

// Status is the property's answer in the KsqlConfig checklist: honoured,
// inert (accepted with no effect) or refused (any value but the default).
func (d *Def) Status() string {
	switch {
	case d.refused != "":
		return "refused"
	case d.inert:
		return "inert"
	}
	return "honoured"
}

// Fixed says whether the property is the server's: a client may not
// override it.
func (d *Def) Fixed() bool { return d.fixed }

// Scope is SHOW PROPERTIES' scope column.
func (d *Def) Scope() string {
	if strings.HasPrefix(d.name, "ksql.streams.") {
		return "STREAMS"
	}
	return "KSQL"
}

// Table is the engine's properties by full name.
type Table map[string]*Def

// NewTable returns the table. Defaults that depend on the machine
// (num.stream.threads) are filled in here.
func NewTable() Table {
	t := Table{}
	for _, d := range allDefs() {
		// ksqlDB's ImmutableProperties include every TLS setting.
		if strings.HasPrefix(d.name, "ksql.streams.ssl.") {
			d.fixed, d.immutable = true, true
		}
		if r, ok := engineClientRoles[d.name]; ok {
			d.roles = r
		}
		t[d.name] = d
	}
	return t
}

// allDefs is every property the engine knows: the table's own, the Kafka
// security settings, the cluster's, the schema registry's, the Kafka
// Connect client's and the rest
// of ksqlDB's KsqlConfig.
func allDefs() []*Def {
	return slices.Concat(engineDefs(), securityDefs(), clusterDefs(), schemaRegistryDefs(), connectDefs(), ksqlDefs(), clientDefs())
}

func engineDefs() []*Def {
	onOff := []string{"true", "false"}
	return []*Def{
		{name: ServiceID, kind: kindString, def: "default_", fixed: true,
			doc: "prefix of the command topic, internal topics and consumer groups"},
		{name: TopicNaming, kind: kindEnum, values: []string{NamingSqlstream, NamingKsqlDB}, def: NamingSqlstream, fixed: true,
			doc: "names of new persistent queries' consumer groups and internal topics: sqlstream (<service id>query_<id>) or ksqldb (_confluent-ksql-<service id>query_<id>, as ksqlDB); a query keeps the names it was created with"},
		{name: PersistentPrefix, kind: kindString, def: "query_", fixed: true,
			doc: "what a new persistent query's consumer group and internal topics put between the service id and the query id, as ksqlDB's"},
		{name: Bootstrap, kind: kindString, fixed: true, immutable: true, doc: "Kafka bootstrap servers"},
		{name: Listeners, kind: kindString, fixed: true, doc: "HTTP API listeners"},
		{name: StateDir, kind: kindString, fixed: true, doc: "directory of the state stores"},
		{name: BrokerListen, kind: kindString, fixed: true, doc: "embedded broker address"},
		{name: DataDir, kind: kindString, fixed: true, doc: "data directory of the process"},
		{name: AllowOrigin, kind: kindString, fixed: true,
			doc: "web origins (comma separated, * for any) whose pages may POST to the HTTP API besides its own"},
		{name: MaxPartitions, kind: kindInt, min: 1, def: strconv.Itoa(defaultMaxPartitions), fixed: true,
			doc: "largest partition count of a topic CREATE makes (and the embedded broker accepts)"},
		{name: MaxStatements, kind: kindInt, min: 1, def: strconv.Itoa(DefaultMaxStatements), fixed: true,
			doc: "most statements one /ksql request may hold (all are parsed before the first runs); split longer scripts"},
		{name: LogLevel, kind: kindEnum, values: []string{"debug", "info", "warn", "error"}, fixed: true,
			doc: "minimum log level"},
		{name: LogFormat, kind: kindEnum, values: []string{"text", "json"}, fixed: true,
			doc: "log line format: text (key=value) or json (one object per line)"},
		{name: GCPercent, kind: kindString, fixed: true,
			doc: "the Go garbage collector's target percent (GOGC) the server runs with, or off"},
		{name: MemoryLimit, kind: kindString, fixed: true,
			doc: "the soft memory limit in bytes (GOMEMLIMIT) the server runs with, or off"},
		{name: NumThreads, kind: kindInt, min: 1, def: strconv.Itoa(goruntime.NumCPU()),
			doc: "goroutines processing the tasks of one persistent query"},
		{name: CommitInterval, kind: kindLong, min: 0, def: "2000",
			doc: "milliseconds between commits (stores flushed, outputs acknowledged, offsets committed); 100 under exactly_once_v2 unless set"},
		{name: SessionTimeout, kind: kindInt, min: 1, def: strconv.Itoa(defaultSessionTimeoutMs),
			doc: "milliseconds a query's group member may go without heartbeats before its tasks move to other servers (the broker's group.min.session.timeout.ms bounds it below)"},
		{name: Standbys, kind: kindInt, min: 0, def: "0",
			doc: "warm copies of each task's stores kept on other servers, fed from the changelogs (failover restores only their lag)"},
		{name: RecoveryLag, kind: kindLong, min: 0, def: "10000",
			doc: "changelog records a server's copy of a task may lag and still count as caught up (a task moves only to a caught-up server)"},
		{name: MaxWarmups, kind: kindInt, min: 1, def: "2",
			doc: "most warmup replicas (copies catching up before their server takes the task over) in a group at once"},
		{name: ProbingInterval, kind: kindLong, min: 1000, def: "600000",
			doc: "milliseconds between the rebalances that promote caught-up warmups (Kafka Streams' minimum is 60000; sqlstream accepts 1000)"},
		{name: OffsetReset, kind: kindEnum, values: []string{"latest", "earliest"}, def: "latest",
			doc: "where a query without committed offsets starts reading its sources"},
		{name: Guarantee, kind: kindEnum, values: []string{"at_least_once", "exactly_once_v2", "exactly_once"},
			def: "at_least_once", doc: "processing guarantee: exactly_once_v2 runs each query's outputs, changelogs and offsets in Kafka transactions (commit interval 100 ms unless set)"},
		{name: CacheBytes, kind: kindLong, min: 0, def: strconv.Itoa(10 << 20),
			doc: "write-back cache of each state store, in bytes (0: none)"},
		{name: ShutdownTimeout, kind: kindLong, min: 0, def: strconv.Itoa(defaultShutdownTimeoutMs), fixed: true, ksqlDefault: "300000",
			doc: "longest wait in ms for a query to stop before TERMINATE, DROP or shutdown go on without it (ksqlDB's default is 300000)"},
		{name: MaxPushQueries, kind: kindInt, min: 0, def: "100", fixed: true,
			doc: "most push queries running at once; more are refused with error 40003"},
		{name: KeyFormat, kind: kindString, def: "KAFKA", doc: "key format when a statement gives none"},
		{name: ValueFormat, kind: kindString, doc: "value format when a statement gives none"},
		{name: WrapSingle, kind: kindEnum, values: onOff, doc: "whether single-column values are wrapped in a record"},
		{name: FailOnDeserError, kind: kindEnum, values: onOff, def: "false",
			doc: "accepted for ksqlDB compatibility (bad records are logged and skipped)", inert: true},
		{name: VarSubstitution, kind: kindEnum, values: onOff, def: "true",
			doc: "whether ${name} in a statement is replaced by the variable's value (false: left as written)"},
		{name: InternalReplicas, kind: kindInt, min: 1, def: "1", doc: "replication factor of internal topics"},
		{name: CollectListLimit, kind: kindInt, min: 0, doc: "largest list COLLECT_LIST builds"},
		{name: CollectSetLimit, kind: kindInt, min: 0, doc: "largest array COLLECT_SET builds"},
		{name: MaxWindowsPerRecord, kind: kindInt, min: 1, def: strconv.Itoa(planner.DefaultMaxWindowsPerRecord), fixed: true,
			doc: "most windows one record may fall into (HOPPING SIZE / ADVANCE BY); a query past it is refused"},
		{name: MaxResultBytes, kind: kindInt, min: 1, def: strconv.Itoa(functions.DefaultMaxResultBytes), fixed: true,
			doc: "largest value LPAD, RPAD, REPLACE, REGEXP_REPLACE, CONCAT, CONCAT_WS, JSON_CONCAT and || build; past it the call is NULL and logged"},
		{name: ThrowOnInvalidTS, kind: kindEnum, values: onOff, def: "false",
			doc: "an invalid TIMESTAMP column fails the query instead of skipping the record"},
		{name: LateTopic, kind: kindString, doc: "topic receiving the records a windowed aggregation dropped as late"},
		{name: MaxTaskIdle, kind: kindLong, min: -1, def: "0",
			doc: "milliseconds a join task waits for records on a caught-up empty input before processing its other inputs (0: only for fetched data; -1: never waits)"},
		{name: PullReadyWait, kind: kindLong, min: 0, def: strconv.Itoa(defaultPullReadyWaitMs),
			doc: "milliseconds the first pull query on a table waits for the table's query to be RUNNING and caught up with its inputs; past it the answer is error 50302 (0: answer at once, as ksqlDB)"},
		{name: AssertSchemaTimeout, kind: kindInt, min: 0, def: "1000",
			doc: "milliseconds an ASSERT SCHEMA without TIMEOUT waits for its assertion to hold"},
		{name: AssertTopicTimeout, kind: kindInt, min: 0, def: "1000",
			doc: "milliseconds an ASSERT TOPIC without TIMEOUT waits for its assertion to hold"},
		{name: IdleClose, kind: kindLong, min: 0, def: "0",
			doc: "milliseconds without records after which the windows of a quiet partition close (0: off)"},
		// Accepted as ksqlDB accepts them (the conformance tests set them).
		{name: PullTableScan, kind: kindEnum, values: onOff, def: "true",
			doc: "pull queries on tables may read the whole table; false: each OR-branch of the WHERE must look keys up"},
		{name: PullRangeScan, kind: kindEnum, values: onOff, def: "true",
			doc: "with table scans off, a pull query may still bound a single STRING key by <, <=, > or >="},
		{name: PullLimit, kind: kindEnum, values: onOff, def: "true", doc: "pull queries may have a LIMIT clause"},
		{name: PushV2, kind: kindEnum, values: onOff, def: "false",
			doc: "push queries ksqlDB would serve as scalable push queries are named SCALABLE_PUSH_QUERY_<uuid> (sqlstream runs them as other push queries)"},
		{name: "ksql.query.pull.stream.enabled", kind: kindEnum, values: onOff, def: "true", inert: true, doc: "pull queries on streams (always on)"},
		{name: "ksql.new.query.planner.enabled", kind: kindEnum, values: onOff, def: "false", inert: true, doc: "ksqlDB's planner choice"},
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

// Defaults returns the properties that have a default, Kafka client
// settings aside (their clients see only what was set).
func (t Table) Defaults() Properties {
	out := Properties{}
	for name, d := range t {
		if d.def != "" && !d.client {
			out[name] = d.def
		}
	}
	return out
}

// Lookup returns the definition of a property (any spelling Normalize
// accepts, and a Kafka client setting under a client's prefix, as
// clients.go resolves it). Function properties (ksql.functions.*) are
// open-ended, as in ksqlDB: they have no definition and are valid.
func (t Table) Lookup(name string) (*Def, error) {
	full := Normalize(name)
	if d, ok := t[full]; ok {
		return d, nil
	}
	if d, ok := t.lookupClient(full); ok {
		return d, nil
	}
	if strings.HasPrefix(full, "ksql.functions.") {
		return &Def{name: full, kind: kindString}, nil
	}
	return nil, &Error{Name: name, Problem: ProblemUnknown}
}

// Check validates a value of a property the server's configuration sets.
func (t Table) Check(name, value string) error {
	d, err := t.Lookup(name)
	if err != nil {
		return err
	}
	return d.parse(name, value)
}

// CheckOverride validates a value a client sets (SET or a request's
// streamsProperties): also refused for the server's own properties.
func (t Table) CheckOverride(name, value string) error {
	d, err := t.Lookup(name)
	if err != nil {
		return err
	}
	if d.immutable {
		return &Error{Name: name, Problem: ProblemImmutable}
	}
	if d.fixed {
		return &Error{Name: name, Problem: ProblemProhibited}
	}
	return d.parse(name, value)
}

// parse checks value against the property's type.
func (d *Def) parse(name, value string) error {
	bad := func(reason string) error {
		return &Error{Name: name, Value: value, Problem: ProblemInvalid, Reason: reason}
	}
	if d.refused != "" && !d.isDefault(value) {
		return &Error{Name: name, Value: value, Problem: ProblemRefused,
			Reason: d.refused + " (only " + shownDefault(d.def) + " is accepted)"}
	}
	if d.name == OffsetReset && strings.EqualFold(strings.TrimSpace(value), "none") {
		// Kafka's consumer takes none; ksqlDB's LocalPropertyValidator does not.
		return bad("'none' is not valid for this property within KSQL")
	}
	switch d.kind {
	case kindBool:
		if _, err := strconv.ParseBool(strings.TrimSpace(value)); err != nil {
			return bad("Expected value to be either true or false")
		}
	case kindInt, kindLong, kindShort:
		bits := map[propKind]int{kindInt: 32, kindLong: 64, kindShort: 16}[d.kind]
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, bits)
		if err != nil {
			return bad("Not a number of type " + kindNames[d.kind])
		}
		if n < d.min {
			return bad(fmt.Sprintf("Value must be at least %d", d.min))
		}
		if d.max != 0 && n > d.max {
			return bad(fmt.Sprintf("Value must be no more than %d", d.max))
		}
	case kindEnum:
		if !slices.Contains(d.values, strings.ToLower(strings.TrimSpace(value))) {
			return bad("String must be one of: " + strings.Join(d.values, ", "))
		}
	case kindDouble:
		if _, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err != nil {
			return bad("Not a number of type DOUBLE")
		}
	}
	return nil
}

// isDefault says whether value is the default, spelled in any case.
func (d *Def) isDefault(value string) bool {
	return strings.EqualFold(strings.TrimSpace(value), d.def)
}

// Problem says what is wrong with a property.
type Problem uint8

// Property problems.
const (
	ProblemUnknown    Problem = iota // no such property
	ProblemProhibited                // a server property a client may not override
	ProblemInvalid                   // a value of the wrong type or out of range
	ProblemRefused                   // a ksqlDB setting sqlstream supports only at its default
	ProblemImmutable                 // one of ksqlDB's ImmutableProperties, which no client may SET
)

// Error is a property that may not be set, or not to that value. The
// message is ksqlDB's.
type Error struct {
	Name    string
	Value   string
	Problem Problem
	Reason  string // for ProblemInvalid
}

func (e *Error) Error() string {
	switch e.Problem {
	case ProblemUnknown:
		return fmt.Sprintf("Not recognizable as ksql, streams, consumer, or producer property: '%s'", e.Name)
	case ProblemRefused:
		return fmt.Sprintf("Property '%s' cannot be %s in sqlstream: %s", e.Name, Shown(e.Name, e.Value), e.Reason)
	case ProblemImmutable:
		return fmt.Sprintf("Cannot override property '%s'", e.Name)
	case ProblemProhibited:
		return fmt.Sprintf("One or more properties overrides set locally are prohibited by the KSQL server (use UNSET to reset their default value): [%s]", e.Name)
	}
	short := strings.TrimPrefix(Normalize(e.Name), "ksql.streams.")
	return fmt.Sprintf("Invalid value %s for configuration %s: %s", Shown(e.Name, e.Value), short, e.Reason)
}

// Server returns the defaults of the property table overlaid with given
// (a server configuration), with normalized names.
func Server(given map[string]string) Properties {
	return NewTable().Defaults().Merge(given)
}

// Check validates one property of a server configuration (a --config
// file key): the error names the property.
func Check(name, value string) error {
	return NewTable().Check(name, value)
}
