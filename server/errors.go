package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// httpError is an error body with its HTTP status.
type httpError interface {
	error
	HTTPStatus() int
}

var (
	_ httpError = (*api.ErrorMessage)(nil)
	_ httpError = (*api.StatementError)(nil)
)

// apiError converts an engine error into a REST error body: API errors
// pass through; SQL errors become statement_error 40001 for statement;
// context cancellation is a 503 (the server is shutting down); anything
// else is a 500.
func apiError(err error, statement string) httpError {
	var he httpError
	if errors.As(err, &he) {
		return he
	}
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return &api.StatementError{ErrorCode: api.CodeBadStatement, Message: se.Error(), StatementText: statement}
	}
	if errors.Is(err, context.Canceled) {
		return &api.ErrorMessage{ErrorCode: api.CodeServerShuttingDown, Message: "The server is shutting down: " + err.Error()}
	}
	return &api.ErrorMessage{ErrorCode: api.CodeServerError, Message: err.Error()}
}

// badRequest is a 40000 generic_error.
func badRequest(msg string) *api.ErrorMessage {
	return &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: msg}
}

// writeErrorBody answers with err's status and JSON body.
func writeErrorBody(w http.ResponseWriter, err httpError) {
	writeJSON(w, err.HTTPStatus(), mediaJSON, err)
}

// writeJSON answers with status and v encoded like ksqlDB does.
func writeJSON(w http.ResponseWriter, status int, media string, v any) {
	body, err := api.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body, _ = api.Marshal(&api.ErrorMessage{ErrorCode: api.CodeServerError, Message: "encoding the response: " + err.Error()})
	}
	w.Header().Set("Content-Type", contentType(media))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeNotAcceptable answers 406 when no offered media type is acceptable.
func writeNotAcceptable(w http.ResponseWriter, offers ...string) {
	msg := "Not Acceptable: this endpoint produces "
	for i, o := range offers {
		if i > 0 {
			msg += ", "
		}
		msg += o
	}
	writePlain(w, http.StatusNotAcceptable, msg)
}
