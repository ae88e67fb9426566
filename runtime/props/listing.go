package props

import (
	"sort"
	"strings"
)

// Listed is one row of SHOW PROPERTIES: a property the engine knows,
// its value in force (Set false when it has none: no default and not
// configured, shown null as ksqlDB's PropertiesList shows an unset
// setting), secrets shown as HiddenValue.
type Listed struct {
	Name  string
	Value string
	Set   bool
	// Default says the value in force is the property's default.
	Default bool
	Scope   string
	Fixed   bool
}

// List returns every property of the table and every other one p sets
// (ksql.functions.*, their values hidden as ksqlDB hides them), sorted by name, with p's values: what ksqlDB's
// ListPropertiesExecutor lists, every setting of its KsqlConfig, unset
// ones included.
func (t Table) List(p Properties) []Listed {
	names := make([]string, 0, len(t)+len(p))
	for name := range t {
		names = append(names, name)
	}
	for name := range p {
		if _, ok := t[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	out := make([]Listed, len(names))
	for i, name := range names {
		out[i] = t.listed(name, p)
	}
	return out
}

func (t Table) listed(name string, p Properties) Listed {
	v, set := p[name]
	l := Listed{Name: name, Value: Shown(name, v), Set: set, Scope: "KSQL"}
	d, known := t[name]
	if !known && strings.HasPrefix(name, "ksql.functions.") {
		l.Value = HiddenValue // ksqlDB hides every function setting it does not define
		return l
	}
	if !known {
		// A Kafka client setting under a client's prefix.
		d, known = t.lookupClient(name)
	}
	if known {
		l.Scope, l.Fixed = d.Scope(), d.fixed
		l.Default = set && d.def != "" && d.isDefault(v)
	}
	if known && !set && d.client && d.def != "" {
		// A client setting left unset: Kafka's default, as ksqlDB lists it.
		l.Value, l.Set, l.Default = d.def, true, true
	}
	return l
}
