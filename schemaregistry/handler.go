package schemaregistry

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
)

// contentType is what the registry answers with; requests may send it,
// application/json, or none (Confluent reads the body as JSON anyway).
const contentType = "application/vnd.schemaregistry.v1+json"

// maxBody bounds a request body (a schema with its references).
const maxBody = 16 << 20

// Handler serves Confluent's REST API (the subset doc.go lists).
func (r *Registry) Handler() http.Handler {
	m := chi.NewRouter()
	m.Use(r.authenticate)
	m.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, &apiError{status: http.StatusNotFound, code: http.StatusNotFound, message: "HTTP 404 Not Found"})
	})
	m.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, &apiError{status: http.StatusMethodNotAllowed, code: http.StatusMethodNotAllowed, message: "HTTP 405 Method Not Allowed"})
	})
	m.Get("/", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, map[string]any{}) })
	m.Get("/schemas/types", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, []string{typeJSON, typeProtobuf, typeAvro})
	})
	m.Get("/contexts", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, []string{"."}) }) // the default context only
	m.Get("/schemas", r.handleSchemas)
	m.Get("/schemas/ids/{id}", r.handleSchemaByID)
	m.Get("/schemas/ids/{id}/schema", r.handleRawSchemaByID)
	m.Get("/schemas/ids/{id}/subjects", r.handleSubjectsByID)
	m.Get("/schemas/ids/{id}/versions", r.handleVersionsByID)
	m.Get("/subjects", r.handleSubjects)
	m.Post("/subjects/{subject}", r.handleLookup)
	m.Delete("/subjects/{subject}", r.handleDeleteSubject)
	m.Get("/subjects/{subject}/versions", r.handleVersions)
	m.Post("/subjects/{subject}/versions", r.handleRegister)
	m.Get("/subjects/{subject}/versions/{version}", r.handleVersion)
	m.Get("/subjects/{subject}/versions/{version}/schema", r.handleRawVersion)
	m.Get("/subjects/{subject}/versions/{version}/referencedby", r.handleReferencedBy)
	m.Delete("/subjects/{subject}/versions/{version}", r.handleDeleteVersion)
	m.Post("/compatibility/subjects/{subject}/versions/{version}", r.handleCompatibility)
	m.Post("/compatibility/subjects/{subject}/versions", r.handleCompatibility)
	m.Get("/config", r.handleGetConfig)
	m.Put("/config", r.handlePutConfig)
	m.Delete("/config", r.handleDeleteConfig)
	m.Get("/config/{subject}", r.handleGetConfig)
	m.Put("/config/{subject}", r.handlePutConfig)
	m.Delete("/config/{subject}", r.handleDeleteConfig)
	m.Get("/mode", r.handleGetMode)
	m.Put("/mode", r.handlePutMode)
	m.Get("/mode/{subject}", r.handleGetMode)
	m.Put("/mode/{subject}", r.handlePutMode)
	m.Delete("/mode/{subject}", r.handleDeleteMode)
	return m
}

func (r *Registry) authenticate(next http.Handler) http.Handler {
	if r.opts.auth == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		user, pass, ok := req.BasicAuth()
		if ok && r.opts.auth(user, pass) {
			next.ServeHTTP(w, req)
			return
		}
		realm := strings.ReplaceAll(r.opts.realm, `"`, "")
		w.Header().Set("WWW-Authenticate", `Basic realm="`+realm+`"`)
		writeError(w, &apiError{status: http.StatusUnauthorized, code: http.StatusUnauthorized, message: "Unauthorized"})
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", contentType)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(e.status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error_code": e.code, "message": e.message})
}

// readBody decodes a JSON request body whatever its Content-Type says.
func readBody(req *http.Request, v any) *apiError {
	b, err := io.ReadAll(http.MaxBytesReader(nil, req.Body, maxBody))
	if err != nil {
		return &apiError{status: http.StatusUnprocessableEntity, code: codeUnprocessableRequestBody, message: "Reading the request body: " + err.Error()}
	}
	if err := json.Unmarshal(b, v); err != nil {
		var se *json.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = "at offset " + strconv.FormatInt(se.Offset, 10) + ": " + msg
		}
		return &apiError{status: http.StatusUnprocessableEntity, code: codeUnprocessableRequestBody, message: "Unrecognized request body " + msg}
	}
	return nil
}

func boolParam(req *http.Request, name string) bool {
	v, _ := strconv.ParseBool(req.URL.Query().Get(name))
	return v
}

// subjectParam is {subject}, unescaped (a subject may hold any character;
// clients path-escape it).
func subjectParam(req *http.Request) string {
	raw := chi.URLParam(req, "subject")
	if s, err := url.PathUnescape(raw); err == nil {
		return s
	}
	return raw
}

// versionParam parses {version}: a positive number, or latest (-1).
func versionParam(req *http.Request) (int, *apiError) {
	s := chi.URLParam(req, "version")
	if s == "latest" || s == "-1" {
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, errorf(codeInvalidVersion, "The specified version '%s' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"", s)
	}
	return n, nil
}

func idParam(req *http.Request) (int, *apiError) {
	n, err := strconv.Atoi(chi.URLParam(req, "id"))
	if err != nil {
		return 0, &apiError{status: http.StatusNotFound, code: codeSchemaNotFound, message: "Schema " + chi.URLParam(req, "id") + " not found"}
	}
	return n, nil
}
