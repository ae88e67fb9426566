package schemaregistry

import (
	"fmt"
	"strings"
)

// The compatibility levels (Confluent's CompatibilityLevel).
var compatibilityLevels = []string{"NONE", "BACKWARD", "BACKWARD_TRANSITIVE",
	"FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"}

func validLevel(l string) bool {
	for _, v := range compatibilityLevels {
		if v == l {
			return true
		}
	}
	return false
}

// readable reports, as messages naming the rule broken and where, why a
// reader schema cannot read data a writer schema wrote; none means it can.
func readable(reader, writer *parsed) []string {
	if reader.typ != writer.typ {
		return []string{fmt.Sprintf("Incompatible schema type: %s cannot read %s", reader.typ, writer.typ)}
	}
	switch reader.typ {
	case typeAvro:
		return avroReadable(reader, writer)
	case typeProtobuf:
		return protoReadable(reader, writer)
	}
	return jsonReadable(reader, writer)
}

// checkLocked checks p against subject's live versions as level says
// (only version only, when non-zero) and returns what is broken.
func (r *Registry) checkLocked(subject string, p *parsed, level string, only int) []string {
	if level == "NONE" {
		return nil
	}
	live := r.st.versions(subject, false)
	if only != 0 {
		live = filterVersion(live, only)
	} else if !strings.HasSuffix(level, "_TRANSITIVE") && len(live) > 0 {
		live = live[len(live)-1:]
	}
	base := strings.TrimSuffix(level, "_TRANSITIVE")
	for i := len(live) - 1; i >= 0; i-- {
		old, err := r.parsedVersionLocked(live[i])
		if err != nil {
			return []string{fmt.Sprintf("version %d cannot be read to compare with: %v", live[i].Version, err)}
		}
		if msgs := checkPair(base, p, old, live[i].Version); len(msgs) > 0 {
			return msgs
		}
	}
	return nil
}

func filterVersion(vs []*version, n int) []*version {
	for _, v := range vs {
		if v.Version == n {
			return []*version{v}
		}
	}
	return nil
}

// checkPair applies one non-transitive level to a new and an old schema.
func checkPair(level string, p, old *parsed, oldVersion int) []string {
	var msgs []string
	if level == "BACKWARD" || level == "FULL" {
		for _, m := range readable(p, old) {
			msgs = append(msgs, fmt.Sprintf("%s: the new schema cannot read data written with version %d: %s", level, oldVersion, m))
		}
	}
	if level == "FORWARD" || level == "FULL" {
		for _, m := range readable(old, p) {
			msgs = append(msgs, fmt.Sprintf("%s: version %d cannot read data written with the new schema: %s", level, oldVersion, m))
		}
	}
	return msgs
}

func (r *Registry) parsedVersionLocked(v *version) (*parsed, error) {
	typ, err := normType(v.SchemaType)
	if err != nil {
		return nil, err
	}
	return parseSchema(typ, v.Schema, v.References, r.resolveLocked)
}
