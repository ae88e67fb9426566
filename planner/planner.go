package planner

import (
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/functions"
)

// Defaults are the server-wide defaults statements fall back on.
type Defaults struct {
	// KeyFormat is ksql.persistence.default.format.key (default KAFKA).
	KeyFormat string
	// ValueFormat is ksql.persistence.default.format.value (default none:
	// VALUE_FORMAT is then required).
	ValueFormat string
	// WrapSingle is ksql.persistence.wrap.single.values (nil: formats'
	// own default, wrapped).
	WrapSingle *bool
	// MaxWindowsPerRecord is sqlstream.window.max.per.record: how many
	// windows one record may fall into (0: DefaultMaxWindowsPerRecord).
	MaxWindowsPerRecord int
	// SchemaRegistry serves the schemas of AVRO, PROTOBUF and JSON_SR
	// (ksql.schema.registry.url); nil: none configured, and those formats
	// are refused.
	SchemaRegistry format.SchemaRegistry
	// Aggregates configure the aggregate functions (collect limits).
	Aggregates []functions.AggregatesOption
	// LegacyJoinRepartition plans joins keyed in a registry format as
	// before every side of them was repartitioned (forcesRepartition):
	// the runtime sets it to replay the queries of commands recorded then,
	// whose topologies, topics and stores must not change. Default false.
	LegacyJoinRepartition bool
	// LegacyRegistryJoinSteps plans joins keyed in a registry format as
	// before a foreign-key join's right table and an n-way join step's
	// right side were repartitioned into the join's key format
	// (alignKeyFormats), for the queries of commands recorded then.
	// Default false.
	LegacyRegistryJoinSteps bool
	// LegacyWindowedJoins plans stream–stream joins of windowed streams
	// keyed in a registry format as before their sides were repartitioned
	// (forcesRepartition): each side read from its own topic, windows of
	// one type and size only. The runtime sets it for the queries of
	// commands recorded then. Default false.
	LegacyWindowedJoins bool
	// LegacyWindowedTableJoins plans joins of windowed tables keyed in a
	// registry format as before their sides were repartitioned
	// (windowedRepartition): each side read from its own topic. The
	// runtime sets it for the queries of commands recorded then. Default
	// false.
	LegacyWindowedTableJoins bool
}

// Planner turns statements into catalog entries and logical plans.
type Planner struct {
	Catalog    *Catalog
	Registry   *functions.Registry
	Aggregates *functions.Aggregates
	Defaults   Defaults
}

// New returns a planner over cat using the scalar functions in reg and
// the built-in aggregate functions (which it declares in reg, so scalar
// contexts recognize them).
func New(cat *Catalog, reg *functions.Registry, d Defaults) *Planner {
	if d.KeyFormat == "" {
		d.KeyFormat = "KAFKA"
	}
	aggs := functions.NewAggregates(d.Aggregates...)
	aggs.DeclareIn(reg)
	return &Planner{Catalog: cat, Registry: reg, Aggregates: aggs, Defaults: d}
}
