package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/sqlstream/sqlstream/api"
)

// The request decoders turn a body already read (see readBody) into an
// endpoint's arguments: one JSON object, numbers as json.Number, required
// fields present. Their errors name the problem and its byte offset. They
// take bytes, not requests, so that FuzzRequestDecoders can drive them.

// parseKsqlRequest decodes the body of /ksql and /query.
func parseKsqlRequest(body []byte) (*api.KsqlRequest, *api.ErrorMessage) {
	var req struct {
		api.KsqlRequest
		Ksql *string `json:"ksql"`
	}
	if bad := decodeJSON(body, &req); bad != nil {
		return nil, bad
	}
	if bad := requireField(req.Ksql != nil, "ksql"); bad != nil {
		return nil, bad
	}
	req.KsqlRequest.Ksql = *req.Ksql
	return &req.KsqlRequest, nil
}

// parseQueryStreamArgs decodes the body of /query-stream.
func parseQueryStreamArgs(body []byte) (*api.QueryStreamArgs, string, *api.ErrorMessage) {
	var args struct {
		api.QueryStreamArgs
		SQL *string `json:"sql"`
	}
	if bad := decodeJSON(body, &args); bad != nil {
		return nil, "", bad
	}
	if bad := requireField(args.SQL != nil, "sql"); bad != nil {
		return nil, "", bad
	}
	return &args.QueryStreamArgs, *args.SQL, nil
}

// parseCloseQuery decodes the body of /close-query: the query id.
func parseCloseQuery(body []byte) (string, *api.ErrorMessage) {
	var args struct {
		QueryID *string `json:"queryId"`
	}
	if bad := decodeJSON(body, &args); bad != nil {
		return "", bad
	}
	if bad := requireField(args.QueryID != nil, "queryId"); bad != nil {
		return "", bad
	}
	return *args.QueryID, nil
}

// decodeJSON decodes exactly one JSON object from data into v.
func decodeJSON(data []byte, v any) *api.ErrorMessage {
	if len(bytes.TrimSpace(data)) == 0 {
		return badRequest("Invalid JSON in request: the body is empty, expected a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return badRequest(describeJSONError(err, int64(len(data))))
	}
	if _, err := dec.Token(); err != io.EOF {
		return badRequest(fmt.Sprintf("Invalid JSON in request: unexpected data after the JSON object at offset %d", dec.InputOffset()))
	}
	return nil
}

// describeJSONError phrases a decoding error with the byte offset where it
// happened; end is the offset reported for a truncated document.
func describeJSONError(err error, end int64) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("Invalid JSON in request at offset %d: %s", syntax.Offset, syntax.Error())
	case errors.As(err, &typ):
		return fmt.Sprintf("Invalid JSON in request at offset %d: field %q must be %s, not %s",
			typ.Offset, typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("Invalid JSON in request at offset %d: unexpected end of input", end)
	}
	return fmt.Sprintf("Invalid JSON in request: %s", err.Error())
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "a boolean"
	}
	return "a number"
}

// requireField reports a missing required request field.
func requireField(present bool, name string) *api.ErrorMessage {
	if present {
		return nil
	}
	return badRequest(fmt.Sprintf("Invalid JSON in request: missing required field %q", name))
}
