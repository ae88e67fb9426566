package schemaregistry

import (
	"encoding/json"
	"sort"
)

// version is one version of a subject, as its SCHEMA record says.
type version struct {
	schemaValue
	identity string // parsed identity of the schema (see parsed.identity)
}

// copy is v as it is now, for use outside Registry.mu (a soft delete
// updates the stored version in place).
func (v *version) copy() *version {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

// state is what the _schemas log says, replayed in log order. It is
// guarded by Registry.mu; apply is its only writer.
type state struct {
	subjects map[string]map[int]*version // subject → version → entry
	ids      map[int]*version            // id → the first version that took it
	configs  map[string]string           // subject ("" global) → compatibility level
	modes    map[string]string           // subject ("" global) → mode
	maxID    int
}

func newState() *state {
	return &state{subjects: map[string]map[int]*version{}, ids: map[int]*version{},
		configs: map[string]string{}, modes: map[string]string{}}
}

// applyResult says what a record did, for the writer that waits on it.
type applyResult int

const (
	applied  applyResult = iota
	ignored              // not ours to read (unknown key type, NOOP)
	conflict             // another server's record took this id or version first
)

// apply folds one _schemas record into the state. The first SCHEMA record
// in log order for an id or a (subject, version) wins; a later one that
// names the same id or version with another schema is a server that lost
// the race, and is not applied. identity computes a schema's identity
// (nil during tests that need none).
func (s *state) apply(key, value []byte, identity func(schemaValue) string) (applyResult, error) {
	k, err := decodeKey(key)
	if err != nil {
		return ignored, err
	}
	switch k.KeyType {
	case keySchema:
		return s.applySchema(k, value, identity)
	case keyConfig:
		return applied, s.applyConfig(k, value)
	case keyMode:
		return applied, s.applyMode(k, value)
	case keyDeleteSubject:
		return applied, s.applyDeleteSubject(value)
	case keyClearSubject:
		return applied, s.applyClearSubject(k)
	}
	return ignored, nil
}

func subjectOf(k recordKey) string {
	if k.Subject == nil {
		return ""
	}
	return *k.Subject
}

func (s *state) applySchema(k recordKey, value []byte, identity func(schemaValue) string) (applyResult, error) {
	subject := subjectOf(k)
	if value == nil {
		s.dropVersion(subject, k.Version)
		return applied, nil
	}
	var v schemaValue
	if err := json.Unmarshal(value, &v); err != nil {
		return ignored, err
	}
	if v.SchemaType == typeAvro {
		v.SchemaType = ""
	}
	id := identity(v)
	if old := s.subjects[subject][k.Version]; old != nil && (old.ID != v.ID || old.identity != id) {
		return conflict, nil
	}
	if first := s.ids[v.ID]; first != nil && first.identity != id {
		return conflict, nil
	}
	if old := s.subjects[subject][k.Version]; old != nil {
		old.schemaValue, old.identity = v, id // the same id again: a soft delete or a reasserted winner
		return applied, nil
	}
	entry := &version{schemaValue: v, identity: id}
	if s.subjects[subject] == nil {
		s.subjects[subject] = map[int]*version{}
	}
	s.subjects[subject][k.Version] = entry
	if s.ids[v.ID] == nil {
		s.ids[v.ID] = entry
	}
	s.maxID = max(s.maxID, v.ID)
	return applied, nil
}

// dropVersion applies a permanent delete (a tombstone). The schema stays
// readable by id while any version still uses it.
func (s *state) dropVersion(subject string, ver int) {
	old := s.subjects[subject][ver]
	if old == nil {
		return
	}
	delete(s.subjects[subject], ver)
	if len(s.subjects[subject]) == 0 {
		delete(s.subjects, subject)
	}
	if s.ids[old.ID] == old {
		delete(s.ids, old.ID)
		if other := s.anyVersionWithID(old.ID); other != nil {
			s.ids[old.ID] = other
		}
	}
}

func (s *state) anyVersionWithID(id int) *version {
	for _, subj := range s.sortedSubjects(true) {
		for _, v := range s.versions(subj, true) {
			if v.ID == id {
				return v
			}
		}
	}
	return nil
}

func (s *state) applyConfig(k recordKey, value []byte) error {
	if value == nil {
		delete(s.configs, subjectOf(k))
		return nil
	}
	var c configValue
	if err := json.Unmarshal(value, &c); err != nil {
		return err
	}
	s.configs[subjectOf(k)] = c.CompatibilityLevel
	return nil
}

func (s *state) applyMode(k recordKey, value []byte) error {
	if value == nil {
		delete(s.modes, subjectOf(k))
		return nil
	}
	var m modeValue
	if err := json.Unmarshal(value, &m); err != nil {
		return err
	}
	s.modes[subjectOf(k)] = m.Mode
	return nil
}

// applyDeleteSubject soft-deletes every version up to the record's.
func (s *state) applyDeleteSubject(value []byte) error {
	if value == nil {
		return nil
	}
	var d deleteSubjectValue
	if err := json.Unmarshal(value, &d); err != nil {
		return err
	}
	for ver, v := range s.subjects[d.Subject] {
		if ver <= d.Version {
			v.Deleted = true
		}
	}
	return nil
}

// applyClearSubject forgets a subject's soft-deleted versions.
func (s *state) applyClearSubject(k recordKey) error {
	subject := subjectOf(k)
	for ver, v := range s.subjects[subject] {
		if v.Deleted {
			s.dropVersion(subject, ver)
		}
	}
	return nil
}

// versions lists a subject's versions in order, soft-deleted ones only
// with deleted.
func (s *state) versions(subject string, deleted bool) []*version {
	var out []*version
	for _, v := range s.subjects[subject] {
		if deleted || !v.Deleted {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out
}

// sortedSubjects lists subjects with a live version (or any, with deleted).
func (s *state) sortedSubjects(deleted bool) []string {
	var out []string
	for subj := range s.subjects {
		if len(s.versions(subj, deleted)) > 0 {
			out = append(out, subj)
		}
	}
	sort.Strings(out)
	return out
}

// nextVersion is one above every version the subject ever had that is
// still in the log (soft-deleted ones count, as in Confluent).
func (s *state) nextVersion(subject string) int {
	n := 0
	for ver := range s.subjects[subject] {
		n = max(n, ver)
	}
	return n + 1
}

// idFor is the id a schema of this identity already has, or 0.
func (s *state) idFor(identity string) int {
	for id, v := range s.ids {
		if v.identity == identity {
			return id
		}
	}
	return 0
}

// compatibility is the subject's level, else the global one, else BACKWARD.
func (s *state) compatibility(subject string) string {
	if c, ok := s.configs[subject]; ok && subject != "" {
		return c
	}
	if c, ok := s.configs[""]; ok {
		return c
	}
	return defaultCompatibility
}

// mode is the subject's mode, else the global one, else READWRITE.
func (s *state) mode(subject string) string {
	if m, ok := s.modes[subject]; ok && subject != "" {
		return m
	}
	if m, ok := s.modes[""]; ok {
		return m
	}
	return defaultMode
}
