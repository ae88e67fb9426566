package schemaregistry

import (
	"net/http"
	"strings"
)

var modes = []string{"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"}

func (r *Registry) handleCompatibility(w http.ResponseWriter, req *http.Request) {
	var body SchemaRequest
	if aerr := readBody(req, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	subject := subjectParam(req)
	only, aerr := r.compatibilityTarget(req, subject)
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	r.mu.Lock()
	p, aerr := r.parseLocked(body)
	var msgs []string
	if aerr == nil {
		level := r.st.compatibility(subject)
		if only == 0 && level != "NONE" && !strings.HasSuffix(level, "_TRANSITIVE") {
			level += "_TRANSITIVE" // against every version
		}
		msgs = r.checkLocked(subject, p, level, only)
	}
	r.mu.Unlock()
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	out := map[string]any{"is_compatible": len(msgs) == 0}
	if boolParam(req, "verbose") {
		out["messages"] = append([]string{}, msgs...)
	}
	writeJSON(w, out)
}

// compatibilityTarget is the version a compatibility check is against:
// {version} (latest resolved), or 0 for every version (/versions).
func (r *Registry) compatibilityTarget(req *http.Request, subject string) (int, *apiError) {
	if strings.HasSuffix(req.URL.Path, "/versions") {
		if err := r.sync(req.Context()); err != nil {
			return 0, errStore(err)
		}
		return 0, nil
	}
	n, aerr := versionParam(req)
	if aerr != nil {
		return 0, aerr
	}
	v, aerr := r.versionOf(req.Context(), subject, n, false)
	if aerr != nil {
		return 0, aerr
	}
	return v.Version, nil
}

func (r *Registry) handleGetConfig(w http.ResponseWriter, req *http.Request) {
	subject := subjectParam(req)
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	r.mu.Lock()
	level, set := r.st.configs[subject]
	if subject == "" || boolParam(req, "defaultToGlobal") {
		level, set = r.st.compatibility(subject), true
	}
	r.mu.Unlock()
	if !set {
		writeError(w, errorf(codeSubjectCompatNotSet, "Subject '%s' does not have subject-level compatibility configured", subject))
		return
	}
	writeJSON(w, map[string]string{"compatibilityLevel": level})
}

func (r *Registry) handlePutConfig(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Compatibility string `json:"compatibility"`
	}
	if aerr := readBody(req, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	level := strings.ToUpper(body.Compatibility)
	if !validLevel(level) {
		writeError(w, errorf(codeInvalidCompatibility, "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive"))
		return
	}
	if aerr := r.setConfig(req.Context(), subjectParam(req), level); aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, map[string]string{"compatibility": level})
}

func (r *Registry) handleDeleteConfig(w http.ResponseWriter, req *http.Request) {
	subject := subjectParam(req)
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	r.mu.Lock()
	old, set := r.st.configs[subject]
	if subject == "" {
		old, set = r.st.compatibility(""), true
	}
	r.mu.Unlock()
	if !set {
		writeError(w, errSubjectNotFound(subject))
		return
	}
	if aerr := r.setConfig(req.Context(), subject, ""); aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, map[string]string{"compatibility": old})
}

func (r *Registry) handleGetMode(w http.ResponseWriter, req *http.Request) {
	subject := subjectParam(req)
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	r.mu.Lock()
	mode, set := r.st.modes[subject]
	if subject == "" || boolParam(req, "defaultToGlobal") {
		mode, set = r.st.mode(subject), true
	}
	r.mu.Unlock()
	if !set {
		writeError(w, errorf(codeSubjectModeNotSet, "Subject '%s' does not have subject-level mode configured", subject))
		return
	}
	writeJSON(w, map[string]string{"mode": mode})
}

func (r *Registry) handlePutMode(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Mode string `json:"mode"`
	}
	if aerr := readBody(req, &body); aerr != nil {
		writeError(w, aerr)
		return
	}
	mode := strings.ToUpper(body.Mode)
	valid := false
	for _, m := range modes {
		valid = valid || m == mode
	}
	if !valid {
		writeError(w, errorf(codeInvalidMode, "Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE and IMPORT."))
		return
	}
	if mode == "IMPORT" && !boolParam(req, "force") {
		if aerr := r.emptyForImport(req); aerr != nil {
			writeError(w, aerr)
			return
		}
	}
	if aerr := r.setMode(req.Context(), subjectParam(req), mode); aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, map[string]string{"mode": mode})
}

func (r *Registry) handleDeleteMode(w http.ResponseWriter, req *http.Request) {
	subject := subjectParam(req)
	if err := r.sync(req.Context()); err != nil {
		writeError(w, errStore(err))
		return
	}
	r.mu.Lock()
	old, set := r.st.modes[subject]
	r.mu.Unlock()
	if !set {
		writeError(w, errSubjectNotFound(subject))
		return
	}
	if aerr := r.setMode(req.Context(), subject, ""); aerr != nil {
		writeError(w, aerr)
		return
	}
	writeJSON(w, map[string]string{"mode": old})
}

// emptyForImport refuses IMPORT mode over existing subjects (the
// subject's own versions, or any subject for the global mode).
func (r *Registry) emptyForImport(req *http.Request) *apiError {
	if err := r.sync(req.Context()); err != nil {
		return errStore(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.st.versions(subjectParam(req), true))
	if subjectParam(req) == "" {
		n = len(r.st.subjects)
	}
	if n > 0 {
		return errorf(codeOperationNotPermitted, "Cannot import since found existing subjects; set force=true to import anyway")
	}
	return nil
}
