package runtime

import (
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/topicname"
)

// WithQTTNaming names persistent queries as ksqlDB's test runner (QTT)
// does, so that the internal topic names its tests assert match: query
// ids end with the count of persistent queries before them (from 0;
// ksqlDB's server, and ours without this option, use the command's
// sequence number in the command topic), and application ids, hence
// internal topics, carry ksqlDB's `_confluent-ksql-` prefix
// (`_confluent-ksql-<service id>query_<query id>`). Only for engines
// without a command log (`sqlstream test`): ids do not survive a replay.
func WithQTTNaming() Option {
	return func(o *options) { o.appPrefix, o.countQueries = "_confluent-ksql-", true }
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
// topics and store ids) of persistent query id.
func (e *Engine) queryAppID(id string) string {
	return e.opts.appPrefix + e.opts.serviceID + "query_" + id
}

// checkDerivedNames refuses a new persistent query whose derived names
// Kafka would refuse: it builds the query's topology under its
// application id and validates each internal topic name (repartition
// and changelog topics, `<application id>-<operator>-…`). It runs before
// anything is created, recorded in the command topic or put in the
// catalog, so a refused statement leaves nothing behind; before, the
// topic creation failed after the sink was in the catalog, where it
// stayed until a restart.
func (e *Engine) checkDerivedNames(plan *planner.Plan, queryID string, pos ast.Pos) error {
	topo, err := physical.Build(plan, physical.Options{AppID: e.queryAppID(queryID), ParseTimestamp: e.parseTimestamp})
	if err != nil {
		return err
	}
	for _, t := range topo.Internal {
		if err := topicname.Validate(t.Name); err != nil {
			return sqlerr.New(sqlerr.Kafka, pos, "Query %s would need the internal topic %s, which Kafka refuses: %v. Choose a shorter name for the new source (or a shorter %s)",
				queryID, t.Name, err, PropServiceID)
		}
	}
	return nil
}
