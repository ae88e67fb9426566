package functions

import (
	"errors"
	"fmt"
	"strconv"
)

// jsonDefs are the JSON functions. Those that take a JSON document parse
// it with parseJSON: invalid JSON is a runtime error (the result is NULL
// and the processing log says why), an empty document is "missing".
func jsonDefs() []ScalarDef {
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
			Overloads: []Overload{{Sig: "JSON_CONCAT(STRING... jsonStrings) STRING", Fn: jsonConcat}}},
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
	tokens, err := jsonPathTokens(args[1].(string))
	if err != nil {
		return nil, err
	}
	n, err := parseJSON(args[0].(string))
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
	if n.kind == jsonString {
		return n.text, nil
	}
	return jsonText(n, false), nil
}

// jsonStep follows one path token: an index into an array, a key into an
// object; anything else has no children.
func jsonStep(n *jsonNode, tok string) *jsonNode {
	switch n.kind {
	case jsonArray:
		i, err := strconv.ParseInt(tok, 10, 32)
		if err != nil || i < 0 || int(i) >= len(n.elems) {
			return nil
		}
		return n.elems[i]
	case jsonObject:
		return n.field(tok)
	}
	return nil
}

func isJSONString(args []any) (any, error) {
	s, ok := args[0].(string)
	if !ok {
		return false, nil
	}
	n, err := parseJSON(s)
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
	p := &jsonParser{s: s, depth: 1}
	p.skipSpace()
	if p.peek() != '[' {
		return false, nil
	}
	p.pos++
	p.skipSpace()
	if p.peek() == ']' {
		return false, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return false, nil
		}
		if match, abort := jsonElemMatches(v, args[1]); match || abort {
			return match, nil
		}
		if done, err := p.separator(']'); done || err != nil {
			return false, nil
		}
	}
}

// jsonElemMatches compares one array element with val; abort reports an
// element that cannot be read as val's type (ksqlDB gives up then).
func jsonElemMatches(n *jsonNode, val any) (match, abort bool) {
	switch n.kind {
	case jsonNull:
		return val == nil, false
	case jsonBool:
		b, ok := val.(bool)
		return ok && b == n.b, false
	case jsonString:
		s, ok := val.(string)
		return ok && s == n.text, false
	case jsonInt:
		return jsonIntMatches(n.text, val)
	case jsonFloat:
		f, ok := val.(float64)
		if !ok {
			return false, false
		}
		g, err := strconv.ParseFloat(n.decimal.String(), 64)
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
	n, err := parseJSON(args[0].(string))
	if err != nil || n == nil || n.kind != jsonArray {
		return nil, err
	}
	return int32(len(n.elems)), nil
}

func jsonConcat(args []any) (any, error) {
	if len(args) == 0 {
		return nil, errors.New("JSON_CONCAT needs at least one argument")
	}
	nodes := make([]*jsonNode, len(args))
	allObjects := true
	for i, a := range args {
		n, err := parseJSON(a.(string))
		if err != nil || n == nil {
			return nil, err
		}
		allObjects = allObjects && n.kind == jsonObject
		nodes[i] = n
	}
	switch {
	case len(nodes) == 1:
		return jsonText(nodes[0], true), nil
	case allObjects:
		return jsonText(mergeJSONObjects(nodes), true), nil
	}
	return jsonText(concatJSONArrays(nodes), true), nil
}

func mergeJSONObjects(nodes []*jsonNode) *jsonNode {
	out := &jsonNode{kind: jsonObject, keys: []string{}, elems: []*jsonNode{}}
	for _, n := range nodes {
		for i, k := range n.keys {
			out.put(k, n.elems[i])
		}
	}
	return out
}

func concatJSONArrays(nodes []*jsonNode) *jsonNode {
	out := &jsonNode{kind: jsonArray, elems: []*jsonNode{}}
	for _, n := range nodes {
		if n.kind == jsonArray {
			out.elems = append(out.elems, n.elems...)
		} else {
			out.elems = append(out.elems, n)
		}
	}
	return out
}

func jsonKeys(args []any) (any, error) {
	n, err := parseJSON(args[0].(string))
	if err != nil || n == nil || n.kind != jsonObject {
		return nil, err
	}
	keys := make([]any, len(n.keys))
	for i, k := range n.keys {
		keys[i] = k
	}
	return keys, nil
}

// jsonRecords maps each top-level key to its value's JSON text; string
// values are given without quotes.
func jsonRecords(args []any) (any, error) {
	n, err := parseJSON(args[0].(string))
	if err != nil || n == nil || n.kind != jsonObject {
		return nil, err
	}
	m := make(map[string]any, len(n.keys))
	for i, k := range n.keys {
		if v := n.elems[i]; v.kind == jsonString {
			m[k] = v.text
		} else {
			m[k] = jsonText(v, false)
		}
	}
	return m, nil
}

// jsonItems returns the JSON text of each element of a top-level array.
func jsonItems(args []any) (any, error) {
	s := args[0].(string)
	n, err := parseJSON(s)
	if err != nil {
		return nil, err
	}
	if n == nil || n.kind != jsonArray {
		return nil, fmt.Errorf("JSON_ITEMS: not a JSON array: %q", s)
	}
	items := make([]any, len(n.elems))
	for i, e := range n.elems {
		items[i] = jsonText(e, false)
	}
	return items, nil
}
