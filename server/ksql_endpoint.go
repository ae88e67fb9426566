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
	req, bad := decodeKsqlRequest(w, r)
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

func decodeKsqlRequest(w http.ResponseWriter, r *http.Request) (*api.KsqlRequest, *api.ErrorMessage) {
	var req struct {
		api.KsqlRequest
		Ksql *string `json:"ksql"`
	}
	if bad := decodeBody(w, r, &req); bad != nil {
		return nil, bad
	}
	if bad := requireField(req.Ksql != nil, "ksql"); bad != nil {
		return nil, bad
	}
	req.KsqlRequest.Ksql = *req.Ksql
	return &req.KsqlRequest, nil
}
