package props

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestPropertyTable is the golden test of the property table.
//
//	check      one "name=value" a line, as the server's configuration
//	           sets it: ok or the error
//	override   the same, as a client sets it (SET, streamsProperties)
//	config     "name=value" lines over the defaults: the parsed
//	           QueryConfig, or the error naming the bad property
//	defaults   the table's defaults (num.stream.threads masked)
//	list       SHOW PROPERTIES' rows over the defaults and the given
//	           "name=value" lines: value (null when unset), [default],
//	           [fixed]; ksql.streams.num.stream.threads masked
func TestPropertyTable(t *testing.T) {
	table := NewTable()
	datadriven.RunTest(t, "testdata/table", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "check", "override":
			var out strings.Builder
			for _, line := range nonEmptyLines(d.Input) {
				name, value, _ := strings.Cut(line, "=")
				err := table.Check(name, value)
				if d.Cmd == "override" {
					err = table.CheckOverride(name, value)
				}
				fmt.Fprintf(&out, "%s: %s\n", line, errText(err))
			}
			return out.String()
		case "config":
			props := table.Defaults()
			for _, line := range nonEmptyLines(d.Input) {
				name, value, _ := strings.Cut(line, "=")
				props[Normalize(name)] = value
			}
			c, err := NewQueryConfig(table, props)
			if err != nil {
				return "error: " + errText(err) + "\n"
			}
			c.Threads = -1
			return fmt.Sprintf("%+v\n", c)
		case "defaults":
			p := table.Defaults()
			p[NumThreads] = "<cpus>"
			var out strings.Builder
			for _, k := range p.Sorted() {
				fmt.Fprintf(&out, "%s=%s\n", k, p[k])
			}
			return out.String()
		case "list":
			return listing(table, d.Input)
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

// TestErrorsAreTyped: callers tell the problems apart by type,
// not by wording.
func TestErrorsAreTyped(t *testing.T) {
	table := NewTable()
	for _, tc := range []struct {
		name, value string
		want        Problem
	}{
		{"no.such.property", "x", ProblemUnknown},
		{"ksql.service.id", "x", ProblemProhibited},
		{"commit.interval.ms", "soon", ProblemInvalid},
	} {
		var pe *Error
		if err := table.CheckOverride(tc.name, tc.value); !errors.As(err, &pe) || pe.Problem != tc.want || pe.Name != tc.name {
			t.Errorf("%s=%s: %v, want a %d Error naming it", tc.name, tc.value, err, tc.want)
		}
	}
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// TestStreamsPropertyNumbers: a number in streamsProperties decoded as a
// float64 is the integer it spells, so it passes an integer property.
func TestStreamsPropertyNumbers(t *testing.T) {
	table := NewTable()
	for v, want := range map[any]string{float64(10485760): "10485760", float64(0.5): "0.5", "earliest": "earliest", true: "true"} {
		if got := Text(v); got != want {
			t.Errorf("Text(%v) = %q, want %q", v, got, want)
		}
	}
	if err := table.CheckOverride(CacheBytes, Text(float64(10485760))); err != nil {
		t.Error(err)
	}
}

// listing prints SHOW PROPERTIES' rows over the defaults and the given
// lines.
func listing(table Table, input string) string {
	p := table.Defaults()
	for _, line := range nonEmptyLines(input) {
		name, value, _ := strings.Cut(line, "=")
		p[Normalize(name)] = value
	}
	p[NumThreads] = "<cpus>"
	var out strings.Builder
	for _, l := range table.List(p) {
		v := "null"
		if l.Set {
			v = l.Value
		}
		fmt.Fprintf(&out, "%s %s=%s", l.Scope, l.Name, v)
		if l.Default {
			out.WriteString(" [default]")
		}
		if l.Fixed {
			out.WriteString(" [fixed]")
		}
		out.WriteString("\n")
	}
	return out.String()
}

// TestNoDuplicateRows: each property has one row (a second would
// silently replace the first in NewTable).
func TestNoDuplicateRows(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range allDefs() {
		if seen[d.name] {
			t.Errorf("%s has two rows", d.name)
		}
		seen[d.name] = true
	}
}
