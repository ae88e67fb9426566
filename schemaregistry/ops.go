package schemaregistry

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// SchemaRequest is a schema as a client posts it.
type SchemaRequest struct {
	Schema     string      `json:"schema"`
	SchemaType string      `json:"schemaType,omitempty"`
	References []Reference `json:"references,omitempty"`
	// ID and Version are given only in IMPORT mode (a migration from
	// another registry keeps its ids).
	ID      int `json:"id,omitempty"`
	Version int `json:"version,omitempty"`
}

func mustUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// parseLocked parses a request's schema against the current state.
func (r *Registry) parseLocked(req SchemaRequest) (*parsed, *apiError) {
	typ, err := normType(req.SchemaType)
	if err != nil {
		return nil, errorf(codeInvalidSchema, "%v", err)
	}
	if strings.TrimSpace(req.Schema) == "" {
		return nil, errorf(codeInvalidSchema, "Empty schema")
	}
	p, err := parseSchema(typ, req.Schema, req.References, r.resolveLocked)
	if err != nil {
		return nil, errorf(codeInvalidSchema, "Invalid schema %s: %v", typ, err)
	}
	return p, nil
}

// register registers req under subject, or returns the version that
// already has it. Ids and versions are allocated optimistically: the
// record is appended and read back, and if another server's record took
// the id or version first (see state.apply) it is tried again.
func (r *Registry) register(ctx context.Context, subject string, req SchemaRequest) (*version, *apiError) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	for range maxWriteAttempts {
		v, done, aerr := r.tryRegister(ctx, subject, req)
		if aerr != nil || done {
			return v, aerr
		}
	}
	return nil, errorf(codeStoreError, "Register of subject '%s' lost %d races for an id or version to other servers; retry", subject, maxWriteAttempts)
}

func (r *Registry) tryRegister(ctx context.Context, subject string, req SchemaRequest) (*version, bool, *apiError) {
	if err := r.sync(ctx); err != nil {
		return nil, false, errStore(err)
	}
	r.mu.Lock()
	if m := r.st.mode(subject); m == "READONLY" || m == "READONLY_OVERRIDE" {
		r.mu.Unlock()
		return nil, false, errorf(codeOperationNotPermitted, "Subject %s is in read-only mode", subject)
	}
	p, aerr := r.parseLocked(req)
	if aerr != nil {
		r.mu.Unlock()
		return nil, false, aerr
	}
	if v := r.liveWithIdentityLocked(subject, p.identity); v != nil && (req.ID == 0 || v.ID == req.ID) {
		r.mu.Unlock()
		return v.copy(), true, nil
	}
	val, aerr := r.allocateLocked(subject, p, req)
	if aerr != nil {
		r.mu.Unlock()
		return nil, false, aerr
	}
	r.mu.Unlock()
	if r.beforeAppend != nil {
		r.beforeAppend()
	}
	res, err := r.write(ctx, schemaKey(subject, val.Version), mustJSON(val))
	if err != nil {
		return nil, false, errStore(err)
	}
	if res == applied {
		return &version{schemaValue: val, identity: p.identity}, true, nil
	}
	return nil, false, r.reassertWinner(ctx, subject, val.Version)
}

// allocateLocked picks the new version's id and number: the next free
// ones after a compatibility check, or, in IMPORT mode, the ones the
// request gives (no compatibility check, as in Confluent).
func (r *Registry) allocateLocked(subject string, p *parsed, req SchemaRequest) (schemaValue, *apiError) {
	val := schemaValue{Subject: subject, Version: r.st.nextVersion(subject), References: p.refs, Schema: p.text}
	if p.typ != typeAvro {
		val.SchemaType = p.typ
	}
	importing := r.st.mode(subject) == "IMPORT"
	switch {
	case importing && req.ID <= 0:
		return val, errorf(codeOperationNotPermitted, "Subject %s is in import mode: a schema must be registered with its id", subject)
	case !importing && (req.ID != 0 || req.Version != 0):
		return val, errorf(codeOperationNotPermitted, "Subject %s is not in import mode: a schema id or version can be given only in IMPORT mode", subject)
	case importing:
		return r.importLocked(subject, p, req, val)
	}
	if msgs := r.checkLocked(subject, p, r.st.compatibility(subject), 0); len(msgs) > 0 {
		return val, errorf(codeIncompatible, "Schema being registered is incompatible with an earlier schema for subject \"%s\", details: %s", subject, strings.Join(msgs, "; "))
	}
	val.ID = r.st.idFor(p.identity)
	if val.ID == 0 {
		val.ID = r.st.maxID + 1
	}
	return val, nil
}

func (r *Registry) importLocked(subject string, p *parsed, req SchemaRequest, val schemaValue) (schemaValue, *apiError) {
	val.ID = req.ID
	if req.Version > 0 {
		val.Version = req.Version
	}
	if old := r.st.ids[req.ID]; old != nil && old.identity != p.identity {
		return val, errorf(codeOperationNotPermitted, "Overwrite new schema with id %d is not permitted.", req.ID)
	}
	if old := r.st.subjects[subject][val.Version]; old != nil {
		return val, errorf(codeOperationNotPermitted, "Overwrite new schema with version %d of subject %s is not permitted.", val.Version, subject)
	}
	return val, nil
}

// reassertWinner appends again the record that beat ours to a version,
// so that compaction, which keeps the last record of a key, keeps the
// winner rather than our losing one.
func (r *Registry) reassertWinner(ctx context.Context, subject string, ver int) *apiError {
	r.mu.Lock()
	w := r.st.subjects[subject][ver]
	var val []byte
	if w != nil {
		val = mustJSON(w.schemaValue)
	}
	r.mu.Unlock()
	if val == nil {
		return nil
	}
	if _, err := r.write(ctx, schemaKey(subject, ver), val); err != nil {
		return errStore(err)
	}
	return nil
}

func (r *Registry) liveWithIdentityLocked(subject, identity string) *version {
	for _, v := range r.st.versions(subject, false) {
		if v.identity == identity {
			return v
		}
	}
	return nil
}

// lookup finds the live version of subject that has req's schema.
func (r *Registry) lookup(ctx context.Context, subject string, req SchemaRequest, deleted bool) (*version, *apiError) {
	if err := r.sync(ctx); err != nil {
		return nil, errStore(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p, aerr := r.parseLocked(req)
	if aerr != nil {
		return nil, aerr
	}
	vs := r.st.versions(subject, deleted)
	if len(vs) == 0 {
		return nil, errSubjectNotFound(subject)
	}
	for _, v := range vs {
		if v.identity == p.identity {
			return v.copy(), nil
		}
	}
	return nil, errSchemaNotFound()
}

// deleteSubject soft-deletes (a DELETE_SUBJECT record) or, once soft
// deleted, permanently deletes (a tombstone per version) a subject.
func (r *Registry) deleteSubject(ctx context.Context, subject string, permanent bool) ([]int, *apiError) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if err := r.sync(ctx); err != nil {
		return nil, errStore(err)
	}
	r.mu.Lock()
	all, live := r.st.versions(subject, true), r.st.versions(subject, false)
	r.mu.Unlock()
	switch {
	case len(all) == 0:
		return nil, errSubjectNotFound(subject)
	case !permanent && len(live) == 0:
		return nil, errorf(codeSubjectSoftDeleted, "Subject '%s' was soft deleted. Set permanent=true to delete permanently", subject)
	case permanent && len(live) > 0:
		return nil, errorf(codeSubjectNotSoftDeleted, "Subject '%s' was not deleted first before being permanently deleted", subject)
	}
	if by := r.referrers(subject, 0); len(by) > 0 {
		return nil, errorf(codeReferenceExists, "One or more references exist to the schema {subject=%s}: referenced by ids %v", subject, by)
	}
	nums := versionNumbers(all)
	if !permanent {
		nums = versionNumbers(live)
		val := mustJSON(deleteSubjectValue{Subject: subject, Version: nums[len(nums)-1]})
		if _, err := r.write(ctx, subjectKey(keyDeleteSubject, subject), val); err != nil {
			return nil, errStore(err)
		}
		return nums, nil
	}
	for _, n := range nums {
		if _, err := r.write(ctx, schemaKey(subject, n), nil); err != nil {
			return nil, errStore(err)
		}
	}
	return nums, nil
}

func versionNumbers(vs []*version) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = v.Version
	}
	return out
}

// deleteVersion soft-deletes one version (its SCHEMA record again with
// deleted=true) or, once soft deleted, removes it (a tombstone).
func (r *Registry) deleteVersion(ctx context.Context, subject string, ver int, permanent bool) (int, *apiError) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	v, aerr := r.versionOf(ctx, subject, ver, true)
	if aerr != nil {
		return 0, aerr
	}
	if by := r.referrers(subject, v.Version); len(by) > 0 {
		return 0, errorf(codeReferenceExists, "One or more references exist to the schema {subject=%s,version=%d}: referenced by ids %v", subject, v.Version, by)
	}
	switch {
	case !permanent && v.Deleted:
		return 0, errorf(codeVersionSoftDeleted, "Subject '%s' Version %d was soft deleted. Set permanent=true to delete permanently", subject, v.Version)
	case permanent && !v.Deleted:
		return 0, errorf(codeVersionNotSoftDeleted, "Subject '%s' Version %d was not deleted first before being permanently deleted", subject, v.Version)
	}
	var val []byte
	if !permanent {
		sv := v.schemaValue
		sv.Deleted = true
		val = mustJSON(sv)
	}
	if _, err := r.write(ctx, schemaKey(subject, v.Version), val); err != nil {
		return 0, errStore(err)
	}
	return v.Version, nil
}

// versionOf finds a version; -1 is the latest (live) one.
func (r *Registry) versionOf(ctx context.Context, subject string, ver int, deleted bool) (*version, *apiError) {
	if err := r.sync(ctx); err != nil {
		return nil, errStore(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.st.versions(subject, deleted)
	if len(r.st.versions(subject, true)) == 0 {
		return nil, errSubjectNotFound(subject)
	}
	if ver == -1 {
		if live := r.st.versions(subject, false); len(live) > 0 {
			return live[len(live)-1].copy(), nil
		}
		return nil, errVersionNotFound(subject, ver)
	}
	for _, v := range vs {
		if v.Version == ver {
			return v.copy(), nil
		}
	}
	return nil, errVersionNotFound(subject, ver)
}

// schemaByID is the schema an id names.
func (r *Registry) schemaByID(ctx context.Context, id int) (*version, *apiError) {
	r.mu.Lock()
	v := r.st.ids[id].copy()
	r.mu.Unlock()
	if v != nil {
		return v, nil
	}
	if err := r.sync(ctx); err != nil { // another server may have just written it
		return nil, errStore(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := r.st.ids[id]; v != nil {
		return v.copy(), nil
	}
	return nil, errorf(codeSchemaNotFound, "Schema %d not found", id)
}

// setConfig writes a CONFIG record; level "" deletes the subject's.
func (r *Registry) setConfig(ctx context.Context, subject, level string) *apiError {
	var val []byte
	if level != "" {
		val = mustJSON(configValue{CompatibilityLevel: level})
	}
	if _, err := r.write(ctx, subjectKey(keyConfig, subject), val); err != nil {
		return errStore(err)
	}
	return nil
}

// setMode writes a MODE record; mode "" deletes the subject's.
func (r *Registry) setMode(ctx context.Context, subject, mode string) *apiError {
	var val []byte
	if mode != "" {
		val = mustJSON(modeValue{Mode: mode})
	}
	if _, err := r.write(ctx, subjectKey(keyMode, subject), val); err != nil {
		return errStore(err)
	}
	return nil
}

// referrers lists the ids of live versions whose references name subject
// (at version ver, or any version when ver is 0).
func (r *Registry) referrers(subject string, ver int) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []int
	for _, subj := range r.st.sortedSubjects(false) {
		for _, v := range r.st.versions(subj, false) {
			for _, ref := range v.References {
				if ref.Subject == subject && (ver == 0 || ref.Version == ver) && !slices.Contains(ids, v.ID) {
					ids = append(ids, v.ID)
				}
			}
		}
	}
	slices.Sort(ids)
	return ids
}
