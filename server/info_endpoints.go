package server

import (
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/sqlstream/sqlstream/api"
)

// answer writes v as JSON in the negotiated media type (v1 JSON or
// application/json), or answers 406.
func answer(w http.ResponseWriter, r *http.Request, status int, v any) {
	media, ok := negotiate(r, mediaKsqlV1, mediaJSON)
	if !ok {
		writeNotAcceptable(w, mediaKsqlV1, mediaJSON)
		return
	}
	writeJSON(w, status, media, v)
}

// handleInfo serves GET /info: {"KsqlServerInfo":{…}}.
func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	answer(w, r, http.StatusOK, api.ServerInfoBody{KsqlServerInfo: s.engine.Info()})
}

// handleHealthcheck serves GET /healthcheck, 200 even when unhealthy.
func (s *Server) handleHealthcheck(w http.ResponseWriter, r *http.Request) {
	answer(w, r, http.StatusOK, s.engine.Health(r.Context()))
}

// handleStatuses serves GET /status: every command's status.
func (s *Server) handleStatuses(w http.ResponseWriter, r *http.Request) {
	statuses := s.engine.CommandStatuses()
	if statuses == nil {
		statuses = map[string]string{}
	}
	answer(w, r, http.StatusOK, api.CommandStatuses{CommandStatuses: statuses})
}

// handleStatus serves GET /status/{type}/{entity}/{action}.
func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "type") + "/" + chi.URLParam(r, "entity") + "/" + chi.URLParam(r, "action")
	st, ok := s.commandStatus(id)
	if !ok {
		writeErrorBody(w, &api.ErrorMessage{ErrorCode: api.CodeNotFound, Message: "Command not found: " + id})
		return
	}
	answer(w, r, http.StatusOK, st)
}

func (s *Server) commandStatus(id string) (api.CommandStatus, bool) {
	if l, ok := s.engine.(CommandStatusLookup); ok {
		return l.CommandStatus(id)
	}
	status, ok := s.engine.CommandStatuses()[id]
	return api.CommandStatus{Status: status}, ok
}

// handleIsValidProperty serves GET /is_valid_property/{property}: true, or
// a 40000 error for a property clients may not override.
func (s *Server) handleIsValidProperty(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "property")
	if v, ok := s.engine.(PropertyValidator); ok {
		if err := v.ValidateProperty(name); err != nil {
			writeErrorBody(w, badRequest(err.Error()))
			return
		}
	}
	answer(w, r, http.StatusOK, true)
}

// handleCloseQuery serves POST /close-query {"queryId":…}: 200 with an
// empty body, or 400 for an unknown query.
func (s *Server) handleCloseQuery(w http.ResponseWriter, r *http.Request) {
	body, bad := s.readBody(w, r)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	id, bad := parseCloseQuery(body)
	if bad != nil {
		writeErrorBody(w, bad)
		return
	}
	if err := s.engine.CloseQuery(id); err != nil {
		writeErrorBody(w, userError(err))
		return
	}
	w.WriteHeader(http.StatusOK)
}

// userError keeps API errors and reports any other engine error as a
// 40000 bad request (for /close-query ksqlDB says "No query with id <id>").
func userError(err error) httpError {
	if he := apiError(err, ""); he.HTTPStatus() != http.StatusInternalServerError {
		return he
	}
	return badRequest(err.Error())
}

// handleClusterStatus serves GET /clusterStatus when the engine reports
// it (store restoration progress).
func (s *Server) handleClusterStatus(w http.ResponseWriter, r *http.Request) {
	c, ok := s.engine.(ClusterStatusReporter)
	if !ok {
		http.NotFound(w, r)
		return
	}
	answer(w, r, http.StatusOK, c.ClusterStatus())
}

// handleTasks serves GET /tasks, sqlstream's: per persistent query, the
// tasks this server runs or keeps as replicas, with their roles, states
// and store lags. 404 when the engine does not report them.
func (s *Server) handleTasks(w http.ResponseWriter, r *http.Request) {
	l, ok := s.engine.(TaskLister)
	if !ok {
		notFound(w, r)
		return
	}
	tasks := l.Tasks()
	if tasks == nil {
		tasks = []api.QueryTasks{}
	}
	answer(w, r, http.StatusOK, tasks)
}

// handleClusterTasks serves GET /clusterTasks, sqlstream's: GET /tasks of
// this server and of every other server of its service id (a server that
// does not answer is marked with why). 404 when the engine does not
// report them.
func (s *Server) handleClusterTasks(w http.ResponseWriter, r *http.Request) {
	l, ok := s.engine.(ClusterTaskLister)
	if !ok {
		notFound(w, r)
		return
	}
	answer(w, r, http.StatusOK, l.ClusterTasks(r.Context()))
}

// handleClusterMetrics serves GET /clusterMetrics, sqlstream's: the
// engine's metrics of this server and of every other server of its
// service id (a server that does not answer is marked with why), for the
// web console's charts across hosts. 404 when the engine does not report
// them.
func (s *Server) handleClusterMetrics(w http.ResponseWriter, r *http.Request) {
	l, ok := s.engine.(ClusterMetricsLister)
	if !ok {
		notFound(w, r)
		return
	}
	answer(w, r, http.StatusOK, l.ClusterMetrics(r.Context()))
}
