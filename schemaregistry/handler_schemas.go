package schemaregistry

import (
	"io"
	"net/http"
	"slices"
	"strings"
)

// schemaBody is GET /schemas/ids/{id}'s answer.
type schemaBody struct {
	Schema     string      `json:"schema"`
	SchemaType string      `json:"schemaType,omitempty"`
	References []Reference `json:"references,omitempty"`
}

// versionBody is GET /subjects/{s}/versions/{v}'s answer.
type versionBody struct {
	Subject    string      `json:"subject"`
	Version    int         `json:"version"`
	ID         int         `json:"id"`
	SchemaType string      `json:"schemaType,omitempty"`
	References []Reference `json:"references,omitempty"`
	Schema     string      `json:"schema"`
	Deleted    bool        `json:"deleted,omitempty"`
}

func bodyOf(v *version) versionBody {
	return versionBody{Subject: v.Subject, Version: v.Version, ID: v.ID, SchemaType: v.SchemaType,
		References: v.References, Schema: v.Schema, Deleted: v.Deleted}
}

func (r *Registry) byID(w http.ResponseWriter, req *http.Request) *version {
	id, aerr := idParam(req)
	if aerr == nil {
		var v *version
		if v, aerr = r.schemaByID(req.Context(), id); aerr == nil {
			return v
		}
	}
	writeError(w, aerr)
	return nil
}

func (r *Registry) handleSchemaByID(w http.ResponseWriter, req *http.Request) {
	if v := r.byID(w, req); v != nil {
		writeJSON(w, schemaBody{Schema: v.Schema, SchemaType: v.SchemaType, References: v.References})
	}
}

func (r *Registry) handleRawSchemaByID(w http.ResponseWriter, req *http.Request) {
	if v := r.byID(w, req); v != nil {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, v.Schema)
	}
}

// usesOf lists the versions (soft-deleted ones with deleted) whose schema
// has id.
func (r *Registry) usesOf(id int, deleted bool) []*version {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*version
	for _, subj := range r.st.sortedSubjects(deleted) {
		for _, v := range r.st.versions(subj, deleted) {
			if v.ID == id {
				out = append(out, v.copy())
			}
		}
	}
	return out
}

func (r *Registry) handleSubjectsByID(w http.ResponseWriter, req *http.Request) {
	if v := r.byID(w, req); v != nil {
		subjects := []string{}
		for _, u := range r.usesOf(v.ID, boolParam(req, "deleted")) {
			if !slices.Contains(subjects, u.Subject) {
				subjects = append(subjects, u.Subject)
			}
		}
		writeJSON(w, subjects)
	}
}

func (r *Registry) handleVersionsByID(w http.ResponseWriter, req *http.Request) {
	if v := r.byID(w, req); v != nil {
		type sv struct {
			Subject string `json:"subject"`
			Version int    `json:"version"`
		}
		out := []sv{}
		for _, u := range r.usesOf(v.ID, boolParam(req, "deleted")) {
			out = append(out, sv{u.Subject, u.Version})
		}
		writeJSON(w, out)
	}
}

func (r *Registry) handleSubjects(w http.ResponseWriter, req *http.Request) {
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	r.mu.Lock()
	all := r.st.sortedSubjects(boolParam(req, "deleted"))
	r.mu.Unlock()
	subjects := []string{}
	for _, s := range all {
		if strings.HasPrefix(s, req.URL.Query().Get("subjectPrefix")) {
			subjects = append(subjects, s)
		}
	}
	writeJSON(w, subjects)
}

// handleSchemas is GET /schemas: every version of every subject (with
// subjectPrefix, deleted and latestOnly as Confluent takes them).
func (r *Registry) handleSchemas(w http.ResponseWriter, req *http.Request) {
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	deleted, prefix := boolParam(req, "deleted"), req.URL.Query().Get("subjectPrefix")
	out := []versionBody{}
	r.mu.Lock()
	for _, subj := range r.st.sortedSubjects(deleted) {
		if !strings.HasPrefix(subj, prefix) {
			continue
		}
		vs := r.st.versions(subj, deleted)
		if boolParam(req, "latestOnly") {
			vs = vs[len(vs)-1:]
		}
		for _, v := range vs {
			out = append(out, bodyOf(v))
		}
	}
	r.mu.Unlock()
	writeJSON(w, out)
}

func (r *Registry) handleVersions(w http.ResponseWriter, req *http.Request) {
	subject := subjectParam(req)
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	r.mu.Lock()
	vs := r.st.versions(subject, boolParam(req, "deleted"))
	r.mu.Unlock()
	if len(vs) == 0 {
		writeError(w, errSubjectNotFound(subject))
		return
	}
	writeJSON(w, versionNumbers(vs))
}

func (r *Registry) handleRegister(w http.ResponseWriter, req *http.Request) {
	var body SchemaRequest
	if aerr := readBody(req, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	v, aerr := r.register(req.Context(), subjectParam(req), body)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, map[string]int{"id": v.ID})
}

func (r *Registry) handleLookup(w http.ResponseWriter, req *http.Request) {
	var body SchemaRequest
	if aerr := readBody(req, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	v, aerr := r.lookup(req.Context(), subjectParam(req), body, boolParam(req, "deleted"))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, bodyOf(v))
}

func (r *Registry) version(w http.ResponseWriter, req *http.Request) *version {
	n, aerr := versionParam(req)
	if aerr == nil {
		var v *version
		if v, aerr = r.versionOf(req.Context(), subjectParam(req), n, boolParam(req, "deleted")); aerr == nil {
			return v
		}
	}
	writeError(w, aerr)
	return nil
}

func (r *Registry) handleVersion(w http.ResponseWriter, req *http.Request) {
	if v := r.version(w, req); v != nil {
		writeJSON(w, bodyOf(v))
	}
}

func (r *Registry) handleRawVersion(w http.ResponseWriter, req *http.Request) {
	if v := r.version(w, req); v != nil {
		w.Header().Set("Content-Type", contentType)
		_, _ = io.WriteString(w, v.Schema)
	}
}

func (r *Registry) handleReferencedBy(w http.ResponseWriter, req *http.Request) {
	v := r.version(w, req)
	if v == nil {
		return
	}
	r.mu.Lock()
	ids := []int{}
	for _, subj := range r.st.sortedSubjects(false) {
		for _, u := range r.st.versions(subj, false) {
			if slices.ContainsFunc(u.References, func(ref Reference) bool {
				return ref.Subject == v.Subject && ref.Version == v.Version
			}) && !slices.Contains(ids, u.ID) {
				ids = append(ids, u.ID)
			}
		}
	}
	r.mu.Unlock()
	slices.Sort(ids)
	writeJSON(w, ids)
}

func (r *Registry) handleDeleteSubject(w http.ResponseWriter, req *http.Request) {
	nums, aerr := r.deleteSubject(req.Context(), subjectParam(req), boolParam(req, "permanent"))
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, nums)
}

func (r *Registry) handleDeleteVersion(w http.ResponseWriter, req *http.Request) {
	n, aerr := versionParam(req)
	if aerr == nil {
		n, aerr = r.deleteVersion(req.Context(), subjectParam(req), n, boolParam(req, "permanent"))
	}
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, n)
}
