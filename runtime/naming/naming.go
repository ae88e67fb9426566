package naming

import (
	"fmt"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/topicname"
)

// KsqlInternalPrefix is ksqlDB's KSQL_INTERNAL_TOPIC_PREFIX, a constant
// there, which the ksqldb naming and QTT naming put before the service id.
const KsqlInternalPrefix = "_confluent-ksql-"

// LegacyPersistentPrefix is what every application id had between the
// service id and the query id before the naming was configurable:
// commands recorded then carry no prefix and their queries keep it.
const LegacyPersistentPrefix = "query_"

// Names are the application ids of one server's persistent queries:
// [Internal]<ServiceID><Persistent><query id>.
type Names struct {
	Internal   string // "" or KsqlInternalPrefix (ksqldb or QTT naming)
	ServiceID  string // ksql.service.id
	Persistent string // ksql.persistent.prefix
}

// New is the names of a server whose ksqlDB naming is on or off
// (sqlstream.internal.topic.naming; internal is what the QTT driver
// asked for). It checks that the application ids are legal in topic
// names, saying which properties to change.
func New(internal string, ksqldb bool, serviceID, persistent string) (Names, error) {
	if ksqldb {
		internal = KsqlInternalPrefix
	}
	n := Names{Internal: internal, ServiceID: serviceID, Persistent: persistent}
	if err := topicname.Validate(n.AppPrefix() + "X"); err != nil {
		return n, fmt.Errorf("runtime: %s %q with %s %q gives internal topic names Kafka refuses: %v; change either in the server configuration",
			props.ServiceID, serviceID, props.PersistentPrefix, persistent, err)
	}
	return n, nil
}

// AppPrefix is what new persistent queries' application ids start
// with. Each command records it, so a query keeps its consumer group,
// changelogs and stores when the naming properties change or another
// server of the service id is configured otherwise.
func (n Names) AppPrefix() string { return n.Internal + n.ServiceID + n.Persistent }

// AppID is the application id (consumer group, prefix of internal
// topics and store ids) a new persistent query id gets.
func (n Names) AppID(id string) string { return n.AppPrefix() + id }

// TransientAppID is the application id of transient query id.
func (n Names) TransientAppID(id string) string { return n.Internal + n.ServiceID + id }

// CommandAppID is the application id of the query a command started:
// the prefix the command recorded, or, for a command recorded before
// prefixes were (prefix ""), the names every query had then
// (<service id>query_<id>).
func (n Names) CommandAppID(prefix, queryID string) string {
	if prefix == "" {
		return n.ServiceID + LegacyPersistentPrefix + queryID
	}
	return prefix + queryID
}

// Hidden are the prefixes of every persistent query's internal topics,
// new and legacy, which SHOW TOPICS leaves out.
func (n Names) Hidden() []string {
	return []string{n.AppPrefix(), n.ServiceID + LegacyPersistentPrefix}
}

// CheckDerived refuses a new persistent query whose derived names Kafka
// would refuse: it validates each internal topic name of the query's
// topology, built under its application id (repartition and changelog
// topics, `<application id>-<operator>-…`). The engine runs it before
// anything is created, recorded in the command topic or put in the
// catalog, so a refused statement leaves nothing behind.
func CheckDerived(topo *physical.Topology, queryID string, pos ast.Pos) error {
	for _, t := range topo.Internal {
		if err := topicname.Validate(t.Name); err != nil {
			return sqlerr.New(sqlerr.Kafka, pos, "Query %s would need the internal topic %s, which Kafka refuses: %v. Choose a shorter name for the new source (or a shorter %s)",
				queryID, t.Name, err, props.ServiceID)
		}
	}
	return nil
}
