package describe

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Upgrade is EXPLAIN's report of an in-place upgrade the check allowed:
// the planner's report, the stores and internal topics kept, added and
// dropped, and, with sink (CREATE OR REPLACE), the registry subjects
// that get a new version.
func Upgrade(report *planner.UpgradeReport, old, next *physical.Topology, sink *planner.Source) string {
	s := report.String() + topologyChanges(old, next)
	if sink != nil {
		s += schemaChanges(sink, len(report.Added) > 0)
	}
	return s
}

// Refused is EXPLAIN's report of an upgrade the check refused.
func Refused(err error) string {
	return "refused: " + Message(err) + "\nnothing changes: the running query goes on as it is\n"
}

// Message is an error's message without its position.
func Message(err error) string {
	if se, ok := err.(*sqlerr.Error); ok {
		return se.Msg
	}
	return err.Error()
}

// topologyChanges lists the stores and internal topics an upgrade keeps,
// adds and drops.
func topologyChanges(old, next *physical.Topology) string {
	var b strings.Builder
	diff(&b, "stores", storeNames(old), storeNames(next))
	diff(&b, "internal topics", internalNames(old), internalNames(next))
	fmt.Fprintf(&b, "sink topic: %s (kept)\n", next.SinkTopic)
	return b.String()
}

func diff(b *strings.Builder, what string, old, next []string) {
	var kept, added, dropped []string
	for _, n := range next {
		if slices.Contains(old, n) {
			kept = append(kept, n)
		} else {
			added = append(added, n)
		}
	}
	for _, o := range old {
		if !slices.Contains(next, o) {
			dropped = append(dropped, o)
		}
	}
	if len(old)+len(next) == 0 {
		fmt.Fprintf(b, "%s: none\n", what)
		return
	}
	for _, l := range []struct {
		verb  string
		names []string
	}{{"kept", kept}, {"added", added}, {"dropped", dropped}} {
		if len(l.names) > 0 {
			fmt.Fprintf(b, "%s %s: %s\n", what, l.verb, strings.Join(l.names, ", "))
		}
	}
}

func storeNames(t *physical.Topology) []string {
	var out []string
	for _, st := range t.SubTopologies {
		for _, s := range st.Stores {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

func internalNames(t *physical.Topology) []string {
	var out []string
	for _, it := range t.Internal {
		out = append(out, it.Name)
	}
	sort.Strings(out)
	return out
}

// schemaChanges says which registry subjects of the sink get a new
// version (checked against the subject's compatibility when the
// statement runs).
func schemaChanges(sink *planner.Source, changed bool) string {
	var subjects []string
	for _, f := range []struct {
		uses    bool
		subject string
	}{{sink.KeyFormat.UsesRegistry(), sink.KeyFormat.Subject}, {sink.ValueFormat.UsesRegistry(), sink.ValueFormat.Subject}} {
		if f.uses {
			subjects = append(subjects, f.subject)
		}
	}
	if len(subjects) == 0 {
		return "schemas: no registry subjects\n"
	}
	if !changed {
		return "schemas: " + strings.Join(subjects, ", ") + " unchanged\n"
	}
	return "schemas: a new version of " + strings.Join(subjects, ", ") + " (must pass the subject's compatibility check)\n"
}
