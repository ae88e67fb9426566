package props

import (
	"sort"
	"strings"
)

// Doc describes one property of the engine's table, for the
// sample configuration file (config/sqlstream.properties.example) and
// the test that keeps it complete.
type Doc struct {
	Name string
	// Default is the value used when the property is not set ("" for
	// none); DefaultText says it in words when it depends on the machine.
	Default, DefaultText string
	Doc                  string
	// Type is SHOW PROPERTIES' type, with the allowed values of an enum.
	Type string
	// Fixed properties are the server's: no statement may override them.
	// Inert ones are accepted for ksqlDB compatibility and do nothing.
	Fixed, Inert bool
}

// Docs lists every property of the engine's table, by name.
func Docs() []Doc {
	var out []Doc
	seen := map[string]bool{}
	for _, d := range allDefs() {
		if seen[d.name] {
			continue
		}
		seen[d.name] = true
		p := Doc{Name: d.name, Default: d.def, Doc: d.doc, Type: kindNames[d.kind], Fixed: d.fixed, Inert: d.inert}
		if d.kind == kindEnum {
			p.Type += " (" + strings.Join(d.values, ", ") + ")"
		}
		if d.name == NumThreads {
			p.Default, p.DefaultText = "", "the number of CPUs"
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
