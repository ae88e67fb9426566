package api

import (
	"encoding/json"
	"fmt"
)

// Error codes (ksqlDB's Errors.java): the HTTP status times 100 plus a
// sub-code. The HTTP status of an error is its code / 100.
const (
	CodeBadRequest                  = 40000 // generic, malformed JSON, unknown query id, bad insert row
	CodeBadStatement                = 40001 // parse or validation failure
	CodeQueryEndpoint               = 40002 // SELECT/PRINT sent to /ksql
	CodeMaxPushQueries              = 40003 // too many push queries
	CodeHTTP2Only                   = 40004 // endpoint needs HTTP/2
	CodeInternalOnly                = 40005 // endpoint is inter-node only
	CodeUnauthorized                = 40100
	CodeForbidden                   = 40300
	CodeForbiddenKafkaAccess        = 40301
	CodeUnsupportedMediaType        = 41500 // a body type other than JSON
	CodeNotFound                    = 40400 // e.g. unknown command id
	CodeAssertionFailed             = 41700 // ASSERT TOPIC/SCHEMA failed
	CodeSchemaRegistryNotConfigured = 42801
	CodeTooManyRequests             = 42900
	CodeServerError                 = 50000
	CodeCommandQueueCatchupTimeout  = 50301 // commandSequenceNumber not reached in time
	CodeServerNotReady              = 50302
	CodeServerShuttingDown          = 50303
	CodeServerShutDown              = 50304
)

// The "@type" names of error bodies.
const (
	TypeGenericError   = "generic_error"
	TypeStatementError = "statement_error"
)

// ErrorMessage ("generic_error") is the body of every error response that
// is not about a particular statement.
type ErrorMessage struct {
	ErrorCode int    `json:"error_code"`
	Message   string `json:"message"`
}

// Error returns the message.
func (e *ErrorMessage) Error() string { return e.Message }

// HTTPStatus returns the HTTP status of the error: ErrorCode / 100.
func (e *ErrorMessage) HTTPStatus() int { return httpStatus(e.ErrorCode) }

// MarshalJSON encodes the error with "@type":"generic_error" first.
func (e ErrorMessage) MarshalJSON() ([]byte, error) {
	type plain ErrorMessage
	return marshalTyped(TypeGenericError, plain(e))
}

// StatementError ("statement_error") is a failed statement of POST /ksql
// (or a /query-stream statement that failed before its header). Entities
// holds the results of the statements of the same request that ran before
// the failing one.
type StatementError struct {
	ErrorCode     int      `json:"error_code"`
	Message       string   `json:"message"`
	StatementText string   `json:"statementText"`
	Entities      []Entity `json:"entities"`
}

// Error returns the message.
func (e *StatementError) Error() string { return e.Message }

// HTTPStatus returns the HTTP status of the error: ErrorCode / 100.
func (e *StatementError) HTTPStatus() int { return httpStatus(e.ErrorCode) }

// MarshalJSON encodes the error with "@type":"statement_error" first.
func (e StatementError) MarshalJSON() ([]byte, error) {
	type plain StatementError
	p := plain(e)
	p.Entities = orEmpty(p.Entities)
	return marshalTyped(TypeStatementError, p)
}

// UnmarshalJSON decodes the error, its entities by their "@type".
func (e *StatementError) UnmarshalJSON(data []byte) error {
	var raw struct {
		ErrorCode     int             `json:"error_code"`
		Message       string          `json:"message"`
		StatementText string          `json:"statementText"`
		Entities      json.RawMessage `json:"entities"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = StatementError{ErrorCode: raw.ErrorCode, Message: raw.Message, StatementText: raw.StatementText}
	if len(raw.Entities) == 0 || string(raw.Entities) == "null" {
		return nil
	}
	ents, err := DecodeEntities(raw.Entities)
	e.Entities = ents
	return err
}

func httpStatus(code int) int {
	if code < 10000 {
		return 500
	}
	return code / 100
}

// DecodeError decodes an error response body into *StatementError or
// *ErrorMessage by its "@type". A body that is not a ksqlDB error object
// (e.g. a proxy's text page) becomes an *ErrorMessage with code
// status*100 and the body as message.
func DecodeError(status int, body []byte) error {
	var tag struct {
		Type      string `json:"@type"`
		ErrorCode *int   `json:"error_code"`
	}
	if err := json.Unmarshal(body, &tag); err != nil || tag.ErrorCode == nil {
		return &ErrorMessage{ErrorCode: status * 100, Message: fmt.Sprintf("%d %s", status, trimBody(body))}
	}
	if tag.Type == TypeStatementError {
		se := &StatementError{}
		if err := json.Unmarshal(body, se); err == nil {
			return se
		}
	}
	em := &ErrorMessage{}
	if err := json.Unmarshal(body, em); err != nil {
		return &ErrorMessage{ErrorCode: status * 100, Message: string(body)}
	}
	return em
}

func trimBody(b []byte) string {
	const max = 512
	if len(b) > max {
		b = b[:max]
	}
	return string(b)
}
