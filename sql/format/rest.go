package format

import (
	"encoding/json"

	"github.com/sqlstream/sqlstream/sql/types"
)

// AppendRESTJSON appends v (of SQL type t) as ksqlDB's REST API writes it in
// result rows: DECIMAL as a plain number (never an exponent), DOUBLE as
// Java prints it, BYTES base64, TIMESTAMP "1999-11-30T11:00:00.000" (UTC),
// DATE "1970-01-11", TIME "00:00:10", ARRAY as an array, MAP as an object
// (keys sorted), STRUCT as an object with the declared field names in
// order. A value whose Go type does not match t is written as
// encoding/json would write it.
func AppendRESTJSON(buf []byte, v any, t *types.Type) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		return append(buf, raw...) // rendered already (a row a peer server sent)
	}
	out, err := appendJSON(buf, v, t, restStyle)
	if err == nil {
		return out
	}
	raw, jerr := json.Marshal(v)
	if jerr != nil {
		return append(buf, "null"...)
	}
	return append(buf, raw...)
}

// RenderJSON returns v rendered as AppendRESTJSON does, as a
// json.RawMessage for use inside values passed to encoding/json.
func RenderJSON(v any, t *types.Type) any {
	return json.RawMessage(AppendRESTJSON(nil, v, t))
}
