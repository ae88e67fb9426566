package planner

import (
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
}

// Planner turns statements into catalog entries and logical plans.
type Planner struct {
	Catalog  *Catalog
	Registry *functions.Registry
	Defaults Defaults
}

// New returns a planner over cat using the functions in reg.
func New(cat *Catalog, reg *functions.Registry, d Defaults) *Planner {
	if d.KeyFormat == "" {
		d.KeyFormat = "KAFKA"
	}
	return &Planner{Catalog: cat, Registry: reg, Defaults: d}
}
