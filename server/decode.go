package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/sqlstream/sqlstream/api"
)

// maxBodyBytes bounds request bodies of the non-streaming endpoints.
const maxBodyBytes = 32 << 20

// decodeBody decodes the request body (one JSON object, numbers as
// json.Number) into v. The error names the problem and its byte offset.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) *api.ErrorMessage {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		return badRequest("Reading the request body failed: " + err.Error())
	}
	return decodeJSON(body, v)
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
