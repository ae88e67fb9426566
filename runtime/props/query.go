package props

import (
	"strconv"
	"strings"
	"time"
)

// QueryConfig is what a running query reads from its properties, parsed
// once when the query starts. Every path (persistent queries on Kafka or
// the in-memory cluster, push and pull queries) builds its tasks from it;
// the defaults are the table's.
type QueryConfig struct {
	CommitInterval time.Duration // ksql.streams.commit.interval.ms
	Threads        int           // ksql.streams.num.stream.threads
	FromEarliest   bool          // ksql.streams.auto.offset.reset=earliest
	CacheBytes     int64         // ksql.streams.cache.max.bytes.buffering, per store
	IdleCloseMs    int64         // window.close.idle.ms (0: off)
	MaxTaskIdle    time.Duration // ksql.streams.max.task.idle.ms (negative: never wait)
	LateTopic      string        // late.records.topic ("" for none)
	ThrowOnInvalid bool          // ksql.timestamp.throw.on.invalid
	Guarantee      Semantics     // ksql.streams.processing.guarantee
	SessionTimeout time.Duration // ksql.streams.session.timeout.ms
	HA             HA            // standbys and warmups
	Pull           PullScan      // ksql.query.pull.table.scan.enabled, ksql.query.pull.range.scan.enabled
	Clients        Clients       // the Kafka client settings set (clients.go)
}

// HA is what the task balancer reads of Kafka Streams' high availability
// settings (KIP-441).
type HA struct {
	Standbys      int           // num.standby.replicas
	AcceptableLag int64         // acceptable.recovery.lag
	MaxWarmups    int           // max.warmup.replicas, group-wide
	ProbeInterval time.Duration // probing.rebalance.interval.ms
}

// PullScan is what a pull query on a table may read besides key lookups.
type PullScan struct {
	Table    bool // the whole table (any WHERE)
	KeyRange bool // one key range, with table scans off
}

// Semantics is a query's processing guarantee.
type Semantics uint8

const (
	AtLeastOnce Semantics = iota // outputs and changelogs acknowledged before the offsets are committed
	ExactlyOnce                  // outputs, changelogs and offsets in one Kafka transaction
)

// String is the guarantee's property value, as SHOW QUERIES and EXPLAIN
// print it.
func (g Semantics) String() string {
	if g == ExactlyOnce {
		return "exactly_once_v2"
	}
	return "at_least_once"
}

// EOSCommitInterval is the commit interval under exactly_once_v2 when
// commit.interval.ms is left at its default: Kafka Streams' default (its
// transactions stay short, so read_committed readers see outputs soon).
const EOSCommitInterval = 100 * time.Millisecond

// NewQueryConfig parses props over the table's defaults. The error, an
// *Error, names the first bad property.
func NewQueryConfig(t Table, props Properties) (QueryConfig, error) {
	p := NewParser(t, props)
	c := QueryConfig{
		CommitInterval: p.Millis(CommitInterval),
		Threads:        int(p.Int(NumThreads)),
		FromEarliest:   fromEarliest(p),
		CacheBytes:     p.Int(CacheBytes),
		IdleCloseMs:    p.Int(IdleClose),
		MaxTaskIdle:    p.Millis(MaxTaskIdle),
		LateTopic:      p.Str(LateTopic),
		ThrowOnInvalid: p.Bool(ThrowOnInvalidTS),
		SessionTimeout: p.Millis(SessionTimeout),
		HA: HA{Standbys: int(p.Int(Standbys)), AcceptableLag: p.Int(RecoveryLag),
			MaxWarmups: int(p.Int(MaxWarmups)), ProbeInterval: p.Millis(ProbingInterval)},
		Pull:    PullScan{Table: p.Bool(PullTableScan), KeyRange: p.Bool(PullRangeScan)},
		Clients: parseClients(p),
	}
	// session.timeout.ms is a consumer setting: its consumer. spelling
	// wins, as Kafka Streams reads it.
	if d := (clientReader{p, mainConsumer}).millis("session.timeout.ms"); d.Ok {
		c.SessionTimeout = d.V
	}
	// exactly_once is ksqlDB's (and Kafka Streams' deprecated) name of the
	// same setting; both run as exactly_once_v2.
	if g := p.Str(Guarantee); g == "exactly_once_v2" || g == "exactly_once" {
		c.Guarantee = ExactlyOnce
		// The property set is merged over the table's defaults, so a
		// value equal to the default counts as unset.
		if v, ok := props[CommitInterval]; !ok || v == t[CommitInterval].def {
			c.CommitInterval = EOSCommitInterval
		}
	}
	return c, p.Err()
}

// Parser reads typed values of a property set over the table's defaults,
// keeping the first error (an *Error naming the property).
type Parser struct {
	t     Table
	props Properties
	err   error
}

// mainConsumer are the prefixes of the main consumer's settings, before
// the bare name, as Kafka Streams' getMainConsumerConfigs reads them.
var mainConsumer = []string{"main.consumer.", "consumer."}

// fromEarliest is auto.offset.reset=earliest, its main consumer's
// spelling (consumer.auto.offset.reset) winning over the bare one.
func fromEarliest(p *Parser) bool {
	if v := (clientReader{p, mainConsumer}).str("auto.offset.reset"); v.Ok {
		return v.V == "earliest"
	}
	return p.Str(OffsetReset) == "earliest"
}

// IsOffsetReset says whether a normalized property name is
// auto.offset.reset in any spelling a query reads
// (ksql.streams.consumer.auto.offset.reset too).
func IsOffsetReset(name string) bool {
	if name == OffsetReset {
		return true
	}
	for _, pre := range mainConsumer {
		if name == "ksql.streams."+pre+"auto.offset.reset" {
			return true
		}
	}
	return false
}

// NewParser reads props over t's defaults.
func NewParser(t Table, props Properties) *Parser { return &Parser{t: t, props: props} }

// Err is the first bad value read, nil when all were good.
func (p *Parser) Err() error { return p.err }

// Str returns the property's value, or its default when unset, after
// checking it against the table. An enum's value is lower-cased.
func (p *Parser) Str(name string) string {
	v, ok := p.props[name]
	if !ok {
		v = p.t[name].def
	}
	if err := p.t.Check(name, v); err != nil && p.err == nil && v != "" {
		p.err = err
	}
	if p.t[name].kind == kindEnum {
		v = strings.ToLower(strings.TrimSpace(v))
	}
	return v
}

// Int returns an integer property; its default when the value is bad.
func (p *Parser) Int(name string) int64 {
	n, err := strconv.ParseInt(p.Str(name), 10, 64)
	if err != nil {
		n, _ = strconv.ParseInt(p.t[name].def, 10, 64)
	}
	return n
}

// Millis returns an integer property of milliseconds as a duration.
func (p *Parser) Millis(name string) time.Duration {
	return time.Duration(p.Int(name)) * time.Millisecond
}

// Bool returns a true/false property.
func (p *Parser) Bool(name string) bool {
	b, _ := strconv.ParseBool(p.Str(name))
	return b
}

// Optional returns an integer property with no default, ok false when it
// is unset.
func (p *Parser) Optional(name string) (n int64, ok bool) {
	if v := p.Str(name); v == "" {
		return 0, false
	}
	return p.Int(name), true
}

// OptionalBool returns a true/false property with no default, ok false
// when it is unset or not a boolean.
func (p *Parser) OptionalBool(name string) (b, ok bool) {
	b, err := strconv.ParseBool(p.Str(name))
	return b, err == nil
}
