package format

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/sql/types"
)

// FromJSON converts a generic JSON value (as encoding/json decodes into
// any, preferably with UseNumber) to the Go representation of t, with the
// coercions of the JSON format: numbers and numeric strings for numeric and
// temporal types, any value for STRING (objects as compact JSON text),
// base64 strings for BYTES, objects matched to STRUCT fields by name
// (exact, then upper-cased). It is used for test inputs and /inserts-stream
// rows.
func FromJSON(v any, t *types.Type) (any, error) {
	if v == nil {
		return nil, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("format: cannot convert %T to %s: %w", v, t, err)
	}
	s := scanner{data: raw}
	out, err := newJSONNode(t).decode(&s)
	if err != nil {
		return nil, err
	}
	if s.peek() != 0 {
		return nil, s.fail("end of JSON", "unexpected data after the JSON value")
	}
	return out, nil
}

// ToJSON converts v (of SQL type t) to a generic JSON value as the JSON
// topic format carries it: numbers (INTEGER, BIGINT, DOUBLE, DECIMAL,
// TIMESTAMP epoch millis, DATE days, TIME millis of day) as json.Number
// with the text the serializer writes, BYTES as a base64 string, ARRAY as
// []any, MAP and STRUCT as map[string]any.
func ToJSON(v any, t *types.Type) any {
	if isNull(v) {
		return nil
	}
	switch t.Kind {
	case types.KindArray:
		if a, ok := v.([]any); ok {
			out := make([]any, len(a))
			for i, e := range a {
				out[i] = ToJSON(e, t.Elem)
			}
			return out
		}
	case types.KindMap:
		if m, ok := v.(map[string]any); ok {
			out := make(map[string]any, len(m))
			for k, e := range m {
				out[k] = ToJSON(e, t.Elem)
			}
			return out
		}
	case types.KindStruct:
		if sv, ok := v.(*types.StructValue); ok {
			return structToJSON(sv, t)
		}
	}
	return primitiveToJSON(v, t)
}

func structToJSON(sv *types.StructValue, t *types.Type) map[string]any {
	out := make(map[string]any, len(t.Fields))
	for i, f := range t.Fields {
		var e any
		if i < len(sv.Values) {
			e = sv.Values[i]
		}
		out[f.Name] = ToJSON(e, f.Type)
	}
	return out
}

func primitiveToJSON(v any, t *types.Type) any {
	switch x := v.(type) {
	case string, bool:
		return x
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		text := string(appendJavaDouble(nil, x))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return text // strings, as Jackson writes them
		}
		return json.Number(text)
	case *apd.Decimal:
		if t.Kind == types.KindDecimal {
			if b, err := appendDecimal(nil, x, t); err == nil {
				return json.Number(b)
			}
		}
		return json.Number(x.Text('f'))
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case types.Timestamp:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case types.Date:
		return json.Number(strconv.FormatInt(int64(x), 10))
	case types.Time:
		return json.Number(strconv.FormatInt(int64(x), 10))
	}
	return v
}
