package schemaregistry

import (
	"fmt"
	"net/http"
)

// Confluent's error codes (io.confluent.kafka.schemaregistry.rest.exceptions
// and the REST API reference): the first three digits are the HTTP status.
const (
	codeSubjectNotFound          = 40401
	codeVersionNotFound          = 40402
	codeSchemaNotFound           = 40403
	codeSubjectSoftDeleted       = 40404
	codeSubjectNotSoftDeleted    = 40405
	codeVersionSoftDeleted       = 40406
	codeVersionNotSoftDeleted    = 40407
	codeSubjectCompatNotSet      = 40408
	codeSubjectModeNotSet        = 40409
	codeIncompatible             = 409
	codeInvalidSchema            = 42201
	codeInvalidVersion           = 42202
	codeInvalidCompatibility     = 42203
	codeInvalidMode              = 42204
	codeOperationNotPermitted    = 42205
	codeReferenceExists          = 42206
	codeStoreError               = 50001
	codeUnprocessableRequestBody = 422
)

// apiError is an error the REST API answers with Confluent's body
// {"error_code": …, "message": …}.
type apiError struct {
	status  int
	code    int
	message string
}

func (e *apiError) Error() string { return e.message }

func errorf(code int, format string, args ...any) *apiError {
	status := code
	for status >= 1000 {
		status /= 10
	}
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func errSubjectNotFound(subject string) *apiError {
	return errorf(codeSubjectNotFound, "Subject '%s' not found.", subject)
}

func errVersionNotFound(subject string, ver int) *apiError {
	return errorf(codeVersionNotFound, "Version %d not found for subject '%s'.", ver, subject)
}

func errSchemaNotFound() *apiError { return errorf(codeSchemaNotFound, "Schema not found") }

// errStore is the registry's own or Kafka's failure: 500, retry later.
func errStore(err error) *apiError {
	return &apiError{status: http.StatusInternalServerError, code: codeStoreError,
		message: "Error in the schema registry's store (the _schemas topic); retry: " + err.Error()}
}
