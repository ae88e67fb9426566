package props

import (
	"fmt"

	"github.com/cockroachdb/datadriven"
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

// TestClientPrefixesRead pins, for every Kafka client setting the table
// has (testdata/kafkaclients.tsv) and every spelling it accepts (bare
// and under each prefix of its clients), whether the engine reads it:
// a spelling is read when setting it alone changes the engine's, a
// session's or a query's configuration. The golden file
// testdata/kafkaprefixes lists the spellings of each honoured setting
// that have no effect, so none is silently ignored.
func TestClientPrefixesRead(t *testing.T) {
	table := NewTable()
	seen := map[string]bool{}
	datadriven.RunTest(t, "testdata/kafkaprefixes", func(t *testing.T, td *datadriven.TestData) string {
		var out strings.Builder
		for _, r := range readKafkaClients(t) {
			d, err := table.Lookup(r.name)
			if err != nil || seen[r.name] || d.Status() != "honoured" {
				continue
			}
			seen[r.name] = true
			var read, inert []string
			for _, p := range spellingPrefixes(d)[1:] { // the bare name's answer is the checklist's
				if _, err := table.Lookup(p + r.name); err != nil {
					continue
				}
				if readsSetting(t, table, "ksql.streams."+p+r.name, otherValue(d)) {
					read = append(read, "'"+p+"'")
				} else {
					inert = append(inert, "'"+p+"'")
				}
			}
			fmt.Fprintf(&out, "%s read=%s", r.name, strings.Join(read, ","))
			if len(inert) > 0 {
				fmt.Fprintf(&out, " no-effect=%s", strings.Join(inert, ","))
			}
			out.WriteString("\n")
		}
		return out.String()
	})
}

// spellingPrefixes are the prefixes a setting may be given with ("",
// the bare name, first).
func spellingPrefixes(d *Def) []string {
	out := []string{""}
	for _, p := range rolePrefixes {
		if d.roles&p.role != 0 {
			out = append(out, p.prefix)
		}
	}
	return out
}

// readsSetting says whether setting name=v alone changes the engine's,
// a session's or a query's configuration.
func readsSetting(t *testing.T, table Table, name, v string) bool {
	t.Helper()
	base := table.Defaults()
	given := base.Merge(map[string]string{name: v})
	if d, _ := table.Lookup(name); d != nil && d.kind == kindString && v == "x" {
		given[name] = "/tmp/x" // a path or a name, valid for every string setting
	}
	type config struct {
		e EngineConfig
		s SessionConfig
		q QueryConfig
	}
	parse := func(p Properties) config {
		var c config
		c.e, _ = NewEngineConfig(table, p)
		c.s, _ = NewSessionConfig(table, p)
		c.q, _ = NewQueryConfig(table, p)
		return c
	}
	return fmt.Sprintf("%+v", parse(base)) != fmt.Sprintf("%+v", parse(given))
}
