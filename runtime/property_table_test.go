package runtime

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
//	           queryConfig, or the error naming the bad property
//	defaults   the table's defaults (num.stream.threads masked)
func TestPropertyTable(t *testing.T) {
	table := newPropertyTable()
	datadriven.RunTest(t, "testdata/property_table", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "check", "override":
			var out strings.Builder
			for _, line := range nonEmptyLines(d.Input) {
				name, value, _ := strings.Cut(line, "=")
				err := table.check(name, value)
				if d.Cmd == "override" {
					err = table.checkOverride(name, value)
				}
				fmt.Fprintf(&out, "%s: %s\n", line, errText(err))
			}
			return out.String()
		case "config":
			props := table.defaults()
			for _, line := range nonEmptyLines(d.Input) {
				name, value, _ := strings.Cut(line, "=")
				props[NormalizeProperty(name)] = value
			}
			c, err := newQueryConfig(table, props)
			if err != nil {
				return "error: " + errText(err) + "\n"
			}
			c.threads = -1
			return fmt.Sprintf("%+v\n", c)
		case "defaults":
			p := table.defaults()
			p[PropNumThreads] = "<cpus>"
			var out strings.Builder
			for _, k := range p.Sorted() {
				fmt.Fprintf(&out, "%s=%s\n", k, p[k])
			}
			return out.String()
		}
		t.Fatalf("unknown command %s", d.Cmd)
		return ""
	})
}

// TestPropertyErrorsAreTyped: callers tell the problems apart by type,
// not by wording.
func TestPropertyErrorsAreTyped(t *testing.T) {
	table := newPropertyTable()
	for _, tc := range []struct {
		name, value string
		want        PropertyProblem
	}{
		{"no.such.property", "x", ProblemUnknown},
		{"ksql.service.id", "x", ProblemProhibited},
		{"commit.interval.ms", "soon", ProblemInvalid},
	} {
		var pe *PropertyError
		if err := table.checkOverride(tc.name, tc.value); !errors.As(err, &pe) || pe.Problem != tc.want || pe.Name != tc.name {
			t.Errorf("%s=%s: %v, want a %d PropertyError naming it", tc.name, tc.value, err, tc.want)
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
	table := newPropertyTable()
	for v, want := range map[any]string{float64(10485760): "10485760", float64(0.5): "0.5", "earliest": "earliest", true: "true"} {
		if got := propertyText(v); got != want {
			t.Errorf("propertyText(%v) = %q, want %q", v, got, want)
		}
	}
	if err := table.checkOverride(PropCacheBytes, propertyText(float64(10485760))); err != nil {
		t.Error(err)
	}
}
