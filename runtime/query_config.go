package runtime

import (
	"strconv"
	"strings"
	"time"
)

// queryConfig is what a running query reads from its properties, parsed
// once when the query starts. Every path (persistent queries on Kafka or
// the in-memory cluster, push and pull queries) builds its tasks from it;
// the defaults are the property table's.
type queryConfig struct {
	commitInterval time.Duration // ksql.streams.commit.interval.ms
	threads        int           // ksql.streams.num.stream.threads
	fromEarliest   bool          // ksql.streams.auto.offset.reset=earliest
	cacheBytes     int64         // ksql.streams.cache.max.bytes.buffering, per store
	idleCloseMs    int64         // window.close.idle.ms (0: off)
	maxTaskIdle    time.Duration // ksql.streams.max.task.idle.ms (negative: never wait)
	lateTopic      string        // late.records.topic ("" for none)
	throwOnInvalid bool          // ksql.timestamp.throw.on.invalid
	guarantee      guarantee     // ksql.streams.processing.guarantee
	sessionTimeout time.Duration // ksql.streams.session.timeout.ms
	ha             haConfig      // standbys and warmups
	pull           pullScan      // ksql.query.pull.table.scan.enabled, ksql.query.pull.range.scan.enabled
}

// guarantee is a query's processing guarantee.
type guarantee uint8

const (
	atLeastOnce guarantee = iota // outputs and changelogs acknowledged before the offsets are committed
	exactlyOnce                  // outputs, changelogs and offsets in one Kafka transaction
)

// String is the guarantee's property value, as SHOW QUERIES and EXPLAIN
// print it.
func (g guarantee) String() string {
	if g == exactlyOnce {
		return "exactly_once_v2"
	}
	return "at_least_once"
}

// eosCommitInterval is the commit interval under exactly_once_v2 when
// commit.interval.ms is left at its default: Kafka Streams' default (its
// transactions stay short, so read_committed readers see outputs soon).
const eosCommitInterval = 100 * time.Millisecond

// newQueryConfig parses props over the table's defaults. The error, a
// *PropertyError, names the first bad property.
func newQueryConfig(t propertyTable, props Properties) (queryConfig, error) {
	p := configParser{t: t, props: props}
	c := queryConfig{
		commitInterval: time.Duration(p.int(PropCommitInterval)) * time.Millisecond,
		threads:        int(p.int(PropNumThreads)),
		fromEarliest:   p.str(PropOffsetReset) == "earliest",
		cacheBytes:     p.int(PropCacheBytes),
		idleCloseMs:    p.int(PropIdleClose),
		maxTaskIdle:    time.Duration(p.int(PropMaxTaskIdle)) * time.Millisecond,
		lateTopic:      p.str(PropLateTopic),
		throwOnInvalid: p.bool(PropThrowOnInvalidTS),
		sessionTimeout: time.Duration(p.int(PropSessionTimeout)) * time.Millisecond,
		ha: haConfig{standbys: int(p.int(PropStandbys)), acceptableLag: p.int(PropRecoveryLag),
			maxWarmups: int(p.int(PropMaxWarmups)), probeInterval: time.Duration(p.int(PropProbingInterval)) * time.Millisecond},
		pull: pullScan{table: p.bool(PropPullTableScan), keyRange: p.bool(PropPullRangeScan)},
	}
	// exactly_once is ksqlDB's (and Kafka Streams' deprecated) name of the
	// same setting; both run as exactly_once_v2.
	if g := p.str(PropGuarantee); g == "exactly_once_v2" || g == "exactly_once" {
		c.guarantee = exactlyOnce
		// The property set is merged over the table's defaults, so a
		// value equal to the default counts as unset.
		if v, ok := props[PropCommitInterval]; !ok || v == p.t[PropCommitInterval].def {
			c.commitInterval = eosCommitInterval
		}
	}
	return c, p.err
}

// configParser reads typed values, keeping the first error.
type configParser struct {
	t     propertyTable
	props Properties
	err   error
}

// str returns the property's value, or its default when unset, after
// checking it against the table.
func (p *configParser) str(name string) string {
	v, ok := p.props[name]
	if !ok {
		v = p.t[name].def
	}
	if err := p.t.check(name, v); err != nil && p.err == nil && v != "" {
		p.err = err
	}
	if p.t[name].kind == kindEnum {
		v = strings.ToLower(strings.TrimSpace(v))
	}
	return v
}

func (p *configParser) int(name string) int64 {
	n, err := strconv.ParseInt(p.str(name), 10, 64)
	if err != nil {
		n, _ = strconv.ParseInt(p.t[name].def, 10, 64)
	}
	return n
}

func (p *configParser) bool(name string) bool {
	b, _ := strconv.ParseBool(p.str(name))
	return b
}
