package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// KsqlRequest is the body of POST /ksql and POST /query. The server
// decodes it with json.Decoder.UseNumber, so numeric property values arrive
// as json.Number.
type KsqlRequest struct {
	// Ksql is one or more semicolon-terminated statements.
	Ksql string `json:"ksql"`
	// StreamsProperties are per-request property overrides (the CLI's
	// SET values).
	StreamsProperties map[string]any `json:"streamsProperties,omitempty"`
	// SessionVariables are the values for ${name} substitution.
	SessionVariables Variables `json:"sessionVariables,omitempty"`
	// CommandSequenceNumber, when set, makes the server wait until the
	// command log has executed up to it before running the statements.
	CommandSequenceNumber *int64 `json:"commandSequenceNumber,omitempty"`
	// RequestProperties are internal hints; ignoring them is safe.
	RequestProperties map[string]any `json:"requestProperties,omitempty"`
}

// QueryStreamArgs is the body of POST /query-stream.
type QueryStreamArgs struct {
	SQL              string         `json:"sql"`
	Properties       map[string]any `json:"properties,omitempty"`
	SessionVariables Variables      `json:"sessionVariables,omitempty"`
	// RequestProperties are internal (ksqlDB's KsqlRequestConfig): set
	// only on a pull query one server forwards to another.
	RequestProperties map[string]any `json:"requestProperties,omitempty"`
}

// CloseQueryArgs is the body of POST /close-query.
type CloseQueryArgs struct {
	QueryID string `json:"queryId"`
}

// InsertsStreamArgs is the first line of a POST /inserts-stream body.
type InsertsStreamArgs struct {
	Target     string         `json:"target"`
	Properties map[string]any `json:"properties,omitempty"`
}

// Variables are session variables. ksqlDB accepts any JSON value and
// substitutes its text; decoding keeps strings as they are and other
// scalars as their JSON text (1.5, true). null stays "" .
type Variables map[string]string

// UnmarshalJSON decodes an object of scalars into names and their text.
func (v *Variables) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if raw == nil {
		*v = nil
		return nil
	}
	out := make(Variables, len(raw))
	for name, val := range raw {
		text, err := scalarText(val)
		if err != nil {
			return fmt.Errorf("session variable %q: %w", name, err)
		}
		out[name] = text
	}
	*v = out
	return nil
}

func scalarText(val json.RawMessage) (string, error) {
	val = bytes.TrimSpace(val)
	switch {
	case len(val) == 0 || string(val) == "null":
		return "", nil
	case val[0] == '"':
		var s string
		err := json.Unmarshal(val, &s)
		return s, err
	case val[0] == '{' || val[0] == '[':
		return "", fmt.Errorf("must be a string, number or boolean, not %s", val)
	}
	return string(val), nil
}
