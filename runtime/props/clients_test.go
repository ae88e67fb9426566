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

// TestClientSettingBounds: a Kafka SHORT with a range (Kafka's
// Range.between) is refused past either end with Kafka's words, and a
// setting whose default differs between clients shows each client's.
func TestClientSettingBounds(t *testing.T) {
	table := NewTable()
	for v, want := range map[string]string{"3600": "", "3601": "Value must be no more than 3600", "-1": "Value must be at least 0", "40000": "Not a number of type SHORT"} {
		err := table.CheckOverride("sasl.login.refresh.buffer.seconds", v)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("sasl.login.refresh.buffer.seconds=%s: %v, want %q", v, err, want)
		}
	}
	for name, want := range map[string]string{"receive.buffer.bytes": "32768", "producer.receive.buffer.bytes": "32768",
		"consumer.receive.buffer.bytes": "65536", "admin.receive.buffer.bytes": "65536",
		"connections.max.idle.ms": "540000", "admin.connections.max.idle.ms": "300000"} {
		if d, err := table.Lookup(name); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if d.def != want {
			t.Errorf("%s: default %q, want %q", name, d.def, want)
		}
	}
}
