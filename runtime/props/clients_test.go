package props

import (
	"strconv"
	"strings"
	"testing"
)

// TestHonouredClientSettingsAreRead: every client setting the table calls
// honoured is read into Clients (or the query config) when set, so the
// checklist's honoured means a client option (kafkasec's
// TestClientOptions checks the options themselves).
func TestHonouredClientSettingsAreRead(t *testing.T) {
	table := NewTable()
	for _, d := range clientDefs() {
		if d.inert {
			continue
		}
		v := otherValue(d)
		name := strings.TrimPrefix(d.name, "ksql.streams.")
		if err := table.CheckOverride(name, v); err != nil {
			t.Errorf("%s=%s: %v", name, v, err)
			continue
		}
		c, err := NewQueryConfig(table, table.Defaults().Merge(map[string]string{name: v}))
		if err != nil {
			t.Errorf("%s=%s: %v", name, v, err)
			continue
		}
		if c.Clients.String() == "{}" {
			t.Errorf("%s=%s is honoured but Clients did not read it", name, v)
		}
	}
}

// otherValue is a valid value of d other than its default.
func otherValue(d *Def) string {
	switch d.kind {
	case kindEnum:
		for _, v := range d.values {
			if !strings.EqualFold(v, d.def) {
				return v
			}
		}
	case kindBool:
		b, _ := strconv.ParseBool(d.def)
		return strconv.FormatBool(!b)
	case kindInt, kindLong:
		n, _ := strconv.ParseInt(d.def, 10, 64)
		return strconv.FormatInt(max(n-1, d.min, 1), 10)
	}
	return "x"
}
