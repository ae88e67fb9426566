package physical

import (
	"maps"
	"slices"

	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// subjectSchemas are the schemas the codecs of a topology's internal
// topics register, by subject: what its tasks will write under each
// subject (an aggregate store's changelog value with its accumulators,
// a repartition topic's columns…). The builder records them as it
// decides the formats (internalFormats.keySpec, valueSpec), so an
// upgrade can ask the registry, before anything runs, whether a kept
// subject takes its new schema (SchemaChanges).
type subjectSchemas map[string]format.Schema

// note records the schema spec's codec registers for cols.
func (s subjectSchemas) note(spec format.Spec, cols []types.Column, key bool) {
	if s == nil || spec.Subject == "" || spec.SchemaID != 0 {
		return
	}
	schema, err := format.RegistrySchema(spec, cols, key)
	if err != nil {
		return // the codec fails the same way when its task is made
	}
	s[spec.Subject] = schema
}

// SubjectSchema is a subject and the schema a topology writes under it.
type SubjectSchema struct {
	Subject string
	Schema  format.Schema
}

// SchemaChanges are the subjects of old's internal topics that next
// writes under too, with another schema, in subject order: an upgrade
// from old to next keeps those topics and stores, so each subject must
// accept its new schema under its compatibility rule, or the new tasks
// would fail on their first write there.
func SchemaChanges(old, next *Topology) []SubjectSchema {
	var out []SubjectSchema
	for _, subject := range slices.Sorted(maps.Keys(next.schemas)) {
		was, ok := old.schemas[subject]
		now := next.schemas[subject]
		if ok && (was.Text != now.Text || was.Type != now.Type) {
			out = append(out, SubjectSchema{Subject: subject, Schema: now})
		}
	}
	return out
}
