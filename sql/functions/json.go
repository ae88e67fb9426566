package functions

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// jsonDefs are the JSON functions. Those that take a JSON document parse
// it with java.ParseJSON: invalid JSON is a runtime error (the result is NULL
// and the processing log says why), an empty document is "missing".
func jsonDefs(r *Registry) []ScalarDef {
	return []ScalarDef{
		{Name: "EXTRACTJSONFIELD", Category: CatJSON,
			Description: "Given a STRING that contains JSON data, extract the value at the specified " +
				"JSONPath or NULL if the specified path does not exist.",
			Overloads: []Overload{{Sig: "EXTRACTJSONFIELD(STRING input, STRING path) STRING", Fn: extractJSONField}}},
		{Name: "IS_JSON_STRING", Category: CatJSON,
			Description: "Given a string, returns true if it can be parsed as a valid JSON value, false otherwise.",
			Overloads:   []Overload{{Sig: "IS_JSON_STRING(STRING input) BOOLEAN", Fn: isJSONString, NullAware: true}}},
		{Name: "JSON_ARRAY_CONTAINS", Category: CatJSON,
			Description: "Parses a JSON array and determines whether or not the supplied value is contained within the array.",
			Overloads:   []Overload{{Sig: "JSON_ARRAY_CONTAINS(STRING jsonArray, T val) BOOLEAN", Fn: jsonArrayContains, NullAware: true}}},
		{Name: "JSON_ARRAY_LENGTH", Category: CatJSON,
			Description: "Given a string, parses it as a JSON value and returns the length of the top-level array. " +
				"Returns NULL if the string can't be interpreted as a JSON array.",
			Overloads: []Overload{{Sig: "JSON_ARRAY_LENGTH(STRING jsonArray) INTEGER", Fn: jsonArrayLength}}},
		{Name: "JSON_CONCAT", Category: CatJSON,
			Description: "Given N strings, parse them as JSON values and return a string representing their " +
				"concatenation, following PostgreSQL's || operator: objects are merged (later keys win), " +
				"otherwise non-array values become single-element arrays and the arrays are concatenated. " +
				"Returns NULL if any input is NULL or not JSON.",
			Overloads: []Overload{{Sig: "JSON_CONCAT(STRING... jsonStrings) STRING", Fn: r.capped("JSON_CONCAT", concatSize, jsonConcat)}}},
		{Name: "JSON_KEYS", Category: CatJSON,
			Description: "Given a string, parses it as a JSON object and returns an array of strings representing " +
				"the top-level keys. Returns NULL if the string can't be interpreted as a JSON object.",
			Overloads: []Overload{{Sig: "JSON_KEYS(STRING jsonObj) ARRAY<STRING>", Fn: jsonKeys}}},
		{Name: "JSON_RECORDS", Category: CatJSON,
			Description: "Given a string, parses it as a JSON object and returns a map representing the top-level " +
				"keys and values. Returns NULL if the string can't be interpreted as a JSON object.",
			Overloads: []Overload{{Sig: "JSON_RECORDS(STRING jsonObj) MAP<STRING, STRING>", Fn: jsonRecords}}},
		{Name: "JSON_ITEMS", Category: CatJSON,
			Description: "Given a string with JSON array, converts it to an array of JSON strings. " +
				"Returns NULL if the string can't be interpreted as a JSON array.",
			Overloads: []Overload{{Sig: "JSON_ITEMS(STRING jsonItems) ARRAY<STRING>", Fn: jsonItems}}},
		{Name: "TO_JSON_STRING", Category: CatJSON,
			Description: "Given any ksqlDB type returns the equivalent JSON string.",
			Overloads:   []Overload{{Sig: "TO_JSON_STRING(T input) STRING", Fn: toJSONString, NullAware: true}}},
	}
}

func extractJSONField(args []any) (any, error) {
	tokens, err := java.JSONPathTokens(args[1].(string))
	if err != nil {
		return nil, err
	}
	n, err := java.ParseJSON(args[0].(string))
	if err != nil {
		return nil, err
	}
	if n == nil {
		if len(tokens) == 0 {
			return "", nil // the missing node renders as ""
		}
		return nil, nil
	}
	for _, tok := range tokens {
		if n = jsonStep(n, tok); n == nil {
			return nil, nil
		}
	}
	if n.Kind == java.JSONString {
		return n.Text, nil
	}
	return java.JSONText(n, false), nil
}

// jsonStep follows one path token: an index into an array, a key into an
// object; anything else has no children.
func jsonStep(n *java.JSONNode, tok string) *java.JSONNode {
	switch n.Kind {
	case java.JSONArray:
		i, err := strconv.ParseInt(tok, 10, 32)
		if err != nil || i < 0 || int(i) >= len(n.Elems) {
			return nil
		}
		return n.Elems[i]
	case java.JSONObject:
		return n.Field(tok)
	}
	return nil
}

func isJSONString(args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return false, nil
	}
	n, err := java.ParseJSON(s)
	return err == nil && n != nil, nil
}

// jsonArrayContains scans the top-level elements of a JSON array, as
// ksqlDB's streaming implementation does: a matching element found before
// a syntax error still counts, any other parse failure yields false.
// Integers match INTEGER/BIGINT values, fractional numbers DOUBLE values,
// strings STRING values, booleans BOOLEAN values and null a NULL value.
func jsonArrayContains(args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return nil, nil
	}
	found := false
	java.EachArrayElement(s, func(v *java.JSONNode) bool {
		match, abort := jsonElemMatches(v, args[1])
		found = match
		return !match && !abort
	})
	return found, nil
}

// jsonElemMatches compares one array element with val; abort reports an
// element that cannot be read as val's type (ksqlDB gives up then).
func jsonElemMatches(n *java.JSONNode, val any) (match, abort bool) {
	switch n.Kind {
	case java.JSONNull:
		return val == nil, false
	case java.JSONBool:
		b, ok := val.(bool)
		return ok && b == n.Bool, false
	case java.JSONString:
		s, ok := val.(string)
		return ok && s == n.Text, false
	case java.JSONInt:
		return jsonIntMatches(n.Text, val)
	case java.JSONFloat:
		f, ok := val.(float64)
		if !ok {
			return false, false
		}
		g, err := strconv.ParseFloat(n.Decimal.String(), 64)
		return err == nil && g == f, false
	}
	return false, false
}

func jsonIntMatches(text string, val any) (match, abort bool) {
	switch v := val.(type) {
	case int32:
		i, err := strconv.ParseInt(text, 10, 32)
		return err == nil && int32(i) == v, err != nil
	case int64:
		i, err := strconv.ParseInt(text, 10, 64)
		return err == nil && i == v, err != nil
	}
	return false, false
}

func jsonArrayLength(args []any) (any, error) {
	n, err := java.ParseJSON(args[0].(string))
	if err != nil || n == nil || n.Kind != java.JSONArray {
		return nil, err
	}
	return int32(len(n.Elems)), nil
}

func jsonConcat(args []any) (any, error) {
	if len(args) == 0 {
		return nil, errors.New("JSON_CONCAT needs at least one argument")
	}
	nodes := make([]*java.JSONNode, len(args))
	allObjects := true
	for i, a := range args {
		n, err := java.ParseJSON(a.(string))
		if err != nil || n == nil {
			return nil, err
		}
		allObjects = allObjects && n.Kind == java.JSONObject
		nodes[i] = n
	}
	switch {
	case len(nodes) == 1:
		return java.JSONText(nodes[0], true), nil
	case allObjects:
		return java.JSONText(mergeJSONObjects(nodes), true), nil
	}
	return java.JSONText(concatJSONArrays(nodes), true), nil
}

func mergeJSONObjects(nodes []*java.JSONNode) *java.JSONNode {
	out := &java.JSONNode{Kind: java.JSONObject, Keys: []string{}, Elems: []*java.JSONNode{}}
	for _, n := range nodes {
		for i, k := range n.Keys {
			out.Put(k, n.Elems[i])
		}
	}
	return out
}

func concatJSONArrays(nodes []*java.JSONNode) *java.JSONNode {
	out := &java.JSONNode{Kind: java.JSONArray, Elems: []*java.JSONNode{}}
	for _, n := range nodes {
		if n.Kind == java.JSONArray {
			out.Elems = append(out.Elems, n.Elems...)
		} else {
			out.Elems = append(out.Elems, n)
		}
	}
	return out
}

func jsonKeys(args []any) (any, error) {
	n, err := java.ParseJSON(args[0].(string))
	if err != nil || n == nil || n.Kind != java.JSONObject {
		return nil, err
	}
	keys := make([]any, len(n.Keys))
	for i, k := range n.Keys {
		keys[i] = k
	}
	return keys, nil
}

// jsonRecords maps each top-level key to its value's JSON text; string
// values are given without quotes.
func jsonRecords(args []any) (any, error) {
	n, err := java.ParseJSON(args[0].(string))
	if err != nil || n == nil || n.Kind != java.JSONObject {
		return nil, err
	}
	m := make(map[string]any, len(n.Keys))
	for i, k := range n.Keys {
		if v := n.Elems[i]; v.Kind == java.JSONString {
			m[k] = v.Text
		} else {
			m[k] = java.JSONText(v, false)
		}
	}
	return m, nil
}

// jsonItems returns the JSON text of each element of a top-level array.
func jsonItems(args []any) (any, error) {
	s := args[0].(string)
	n, err := java.ParseJSON(s)
	if err != nil {
		return nil, err
	}
	if n == nil || n.Kind != java.JSONArray {
		return nil, fmt.Errorf("JSON_ITEMS: not a JSON array: %q", s)
	}
	items := make([]any, len(n.Elems))
	for i, e := range n.Elems {
		items[i] = java.JSONText(e, false)
	}
	return items, nil
}
