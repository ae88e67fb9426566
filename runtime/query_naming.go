package runtime

import (
	"fmt"

	"github.com/sqlstream/sqlstream/internal/qttmode"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/topicname"
)

// WithQTT sets the engine's mode for ksqlDB's conformance tests (see
// qttmode.Mode: its naming of queries, topics created on demand). Only
// this module can name a qttmode.Mode, so only the QTT driver and tests
// use it. Default: the zero Mode, a server's behaviour.
func WithQTT(m qttmode.Mode) Option {
	return optionFunc(func(o *options) {
		if m.Naming {
			o.appPrefix, o.countQueries = ksqlInternalPrefix, true
		}
		o.createTopics = m.CreateMissingTopics
	})
}

// ksqlInternalPrefix is ksqlDB's KSQL_INTERNAL_TOPIC_PREFIX, a constant
// there, which the ksqldb naming and QTT naming put before the service id.
const ksqlInternalPrefix = "_confluent-ksql-"

// legacyPersistentPrefix is what every application id had between the
// service id and the query id before the naming was configurable:
// commands recorded then carry no prefix and their queries keep it.
const legacyPersistentPrefix = "query_"

// namingPrefix is what application ids of new queries start with
// before the service id: ksqlDB's constant prefix under the ksqldb (or
// QTT) naming, nothing under sqlstream's. It checks that the prefix of
// application ids (with ksql.persistent.prefix) is legal in topic names.
func namingPrefix(o options, cfg props.EngineConfig) (string, error) {
	prefix := o.appPrefix
	if cfg.KsqlDBNaming {
		prefix = ksqlInternalPrefix
	}
	if err := topicname.Validate(prefix + o.serviceID + cfg.PersistentPrefix + "X"); err != nil {
		return "", fmt.Errorf("runtime: %s %q with %s %q gives internal topic names Kafka refuses: %v; change either in the server configuration",
			props.ServiceID, o.serviceID, props.PersistentPrefix, cfg.PersistentPrefix, err)
	}
	return prefix, nil
}

// queryNumber is the number a new query's id ends with: the sequence
// number seq of its command, or the count of queries so far (QTT naming).
func (e *Engine) queryNumber(seq int64) int64 {
	if e.opts.countQueries {
		return e.queryCount
	}
	return seq
}

// queryAppID is the application id (consumer group, prefix of internal
// topics and store ids) a new persistent query id gets.
func (e *Engine) queryAppID(id string) string {
	return e.queryAppPrefix() + id
}

// queryAppPrefix is what new persistent queries' application ids start
// with: [_confluent-ksql-]<service id><ksql.persistent.prefix>. Each
// command records it (command.AppPrefix), so a query keeps its consumer
// group, changelogs and stores when the naming properties change or
// another server of the service id is configured otherwise.
func (e *Engine) queryAppPrefix() string {
	return e.opts.appPrefix + e.opts.serviceID + e.cfg.PersistentPrefix
}

// commandAppID is the application id of the query c starts: the prefix
// c recorded, or, for a command recorded before prefixes were, the
// names every query had then (<service id>query_<id>).
func (e *Engine) commandAppID(c *command) string {
	if c.AppPrefix == "" {
		return e.opts.serviceID + legacyPersistentPrefix + c.QueryID
	}
	return c.AppPrefix + c.QueryID
}

// checkDerivedNames refuses a new persistent query whose derived names
// Kafka would refuse: it validates each internal topic name of the
// query's topology, built under its application id by buildQuery
// (repartition and changelog topics, `<application id>-<operator>-…`). It runs before
// anything is created, recorded in the command topic or put in the
// catalog, so a refused statement leaves nothing behind; before, the
// topic creation failed after the sink was in the catalog, where it
// stayed until a restart.
func (e *Engine) checkDerivedNames(topo *physical.Topology, queryID string, pos ast.Pos) error {
	for _, t := range topo.Internal {
		if err := topicname.Validate(t.Name); err != nil {
			return sqlerr.New(sqlerr.Kafka, pos, "Query %s would need the internal topic %s, which Kafka refuses: %v. Choose a shorter name for the new source (or a shorter %s)",
				queryID, t.Name, err, props.ServiceID)
		}
	}
	return nil
}
