package server

import (
	"net/http"

	"github.com/sqlstream/sqlstream/api"
)

// handleKsql runs the statements of a KsqlRequest and answers with one
// entity per statement that produced output.
func (s *Server) handleKsql(w http.ResponseWriter, r *http.Request) {
	media, ok := negotiate(r, mediaKsqlV1, mediaJSON)
	if !ok {
		writeNotAcceptable(w, mediaKsqlV1, mediaJSON)
		return
	}
	req, bad := s.decodeKsqlRequest(w, r)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	entities, err := s.engine.Execute(r.Context(), *req)
	if err != nil {
		writeErrorBody(w, apiError(err, req.Ksql))
		return
	}
	if entities == nil {
		entities = []api.Entity{}
	}
	writeJSON(w, http.StatusOK, media, entities)
}

// decodeKsqlRequest reads and decodes the body of /ksql and /query.
func (s *Server) decodeKsqlRequest(w http.ResponseWriter, r *http.Request) (*api.KsqlRequest, *api.ErrorMessage) {
	body, bad := s.readBody(w, r)
	if bad != nil {
		return nil, bad
	}
	return parseKsqlRequest(body)
}
