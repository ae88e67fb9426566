package rest

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"strings"
)

// actualResponse is one response the engine gave: Kind "admin" (Payload
// an entity object) or "query" (Payload the streamed elements). Pull
// marks a pull query, whose rows are compared in any order.
type actualResponse struct {
	Kind    string
	Payload any
	Pull    bool
}

// compareResponses checks the expected responses against the actual ones
// as ksqlDB's RQTT executor does: one per statement, in order, of the
// same kind; objects match when every expected field matches (actual
// objects may have more); "field|starts_with" compares a prefix; a query
// response has exactly the expected elements; a "queryProto" response
// (rows as TextFormat strings) likewise. It returns every problem found.
func compareResponses(expected []map[string]any, actual []actualResponse) []string {
	var problems []string
	i := 0
	for _, exp := range expected {
		path := fmt.Sprintf("responses[%d]", i)
		if i >= len(actual) {
			problems = append(problems, fmt.Sprintf("%s: missing, only %d responses", path, len(actual)))
			break
		}
		if p := compareResponse(path, exp, actual[i]); p != "" {
			problems = append(problems, p)
		}
		i++
	}
	return problems
}

func compareResponse(path string, exp map[string]any, act actualResponse) string {
	if len(exp) != 1 {
		return fmt.Sprintf("%s: an expected response has exactly one field, got %s", path, renderJSON(exp))
	}
	kind := slices.Sorted(maps.Keys(exp))[0]
	if kind != act.Kind {
		return fmt.Sprintf("%s: expected a %s response, got a %s response", path, kind, act.Kind)
	}
	path += "->" + kind
	switch kind {
	case "admin":
		em, ok := exp[kind].(map[string]any)
		if !ok {
			return path + ": expected payload is not an object"
		}
		am, _ := act.Payload.(map[string]any)
		return matchFields(path, em, am)
	case "query", "queryProto":
		el, ok := exp[kind].([]any)
		if !ok {
			return path + ": expected payload is not an array"
		}
		al, _ := act.Payload.([]any)
		return compareStreamed(path, el, al, act.Pull)
	}
	return fmt.Sprintf("%s: unknown response kind %q", path, kind)
}

// compareStreamed compares a query's elements: same count, each expected
// element matching its actual one; for a pull query, rows may come in
// any order (the header and final message keep their places).
func compareStreamed(path string, exp, act []any, unordered bool) string {
	if len(exp) != len(act) {
		return fmt.Sprintf("%s: %d elements expected, got %d: expected %s, got %s",
			path, len(exp), len(act), renderJSON(exp), renderJSON(act))
	}
	if unordered {
		return matchUnordered(path, exp, act)
	}
	for i := range exp {
		if p := matchElement(fmt.Sprintf("%s[%d]", path, i), exp[i], act[i]); p != "" {
			return p
		}
	}
	return ""
}

func matchElement(path string, exp, act any) string {
	em, ok := exp.(map[string]any)
	if !ok {
		return path + ": expected element is not an object"
	}
	am, _ := act.(map[string]any)
	return matchFields(path, em, am)
}

// matchUnordered matches non-row elements in place and expected rows to
// distinct actual rows in any order.
func matchUnordered(path string, exp, act []any) string {
	used := make([]bool, len(act))
	for i, e := range exp {
		if !isRowElement(e) {
			if p := matchElement(fmt.Sprintf("%s[%d]", path, i), e, act[i]); p != "" {
				return p
			}
			used[i] = true
			continue
		}
		if !claimRow(e, act, used) {
			return fmt.Sprintf("%s[%d]: no row matches %s among %s", path, i, renderJSON(e), renderJSON(act))
		}
	}
	return ""
}

func claimRow(e any, act []any, used []bool) bool {
	for j, a := range act {
		if !used[j] && isRowElement(a) && matchElement("", e, a) == "" {
			used[j] = true
			return true
		}
	}
	return false
}

func isRowElement(v any) bool {
	m, ok := v.(map[string]any)
	_, row := m["row"]
	return ok && row
}

// matchFields checks every field of exp against act; a nested expected
// object is matched the same way, anything else must be equal.
func matchFields(path string, exp, act map[string]any) string {
	for _, k := range slices.Sorted(maps.Keys(exp)) {
		name, op, _ := strings.Cut(k, "|")
		a, ok := act[name]
		if !ok {
			return fmt.Sprintf("%s: no field %q in %s", path, name, renderJSON(act))
		}
		if p := matchRestField(path+"->"+name, name, op, exp[k], a); p != "" {
			return p
		}
	}
	return ""
}

func matchRestField(path, name, op string, exp, act any) string {
	if em, ok := exp.(map[string]any); ok {
		am, ok := act.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: expected an object, got %s", path, renderJSON(act))
		}
		return matchFields(path, em, am)
	}
	switch {
	case strings.EqualFold(op, "starts_with"):
		es, _ := exp.(string)
		as, ok := act.(string)
		if !ok || !strings.HasPrefix(as, es) {
			return fmt.Sprintf("%s: expected a string starting with %q, got %s", path, es, renderJSON(act))
		}
		return ""
	case op != "":
		return fmt.Sprintf("%s: unknown match operator %q", path, op)
	case name == "schema":
		if normalizeSchema(exp) == normalizeSchema(act) {
			return ""
		}
	case jsonEqual(exp, act):
		return ""
	}
	return fmt.Sprintf("%s: expected %s, got %s", path, renderJSON(exp), renderJSON(act))
}

// normalizeSchema collapses whitespace in a header schema string, so
// "`A` MAP<STRING,INT>" and "`A` MAP<STRING, INT>" compare equal. Case is
// kept: quoted column names are case-sensitive.
func normalizeSchema(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	s = strings.Join(strings.Fields(s), " ")
	for _, p := range []string{", ", "< ", " >", " <"} {
		s = strings.ReplaceAll(s, p, strings.TrimSpace(p))
	}
	return s
}

// jsonEqual compares JSON-ish values: numbers by value (10 equals 10.0),
// arrays element by element, objects with the same field names.
func jsonEqual(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && numbersEqual(a, bn)
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		return objectsEqual(a, b)
	}
	return a == b
}

func objectsEqual(a map[string]any, b any) bool {
	bm, ok := b.(map[string]any)
	if !ok || len(a) != len(bm) {
		return false
	}
	for k, v := range a {
		w, ok := bm[k]
		if !ok || !jsonEqual(v, w) {
			return false
		}
	}
	return true
}

func numbersEqual(a, b json.Number) bool {
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	if !ok1 || !ok2 {
		return a == b
	}
	return x.Cmp(y) == 0
}

// sortStrings is sort.Strings, returning its argument.
func sortStrings(xs []string) []string {
	sort.Strings(xs)
	return xs
}

// renderJSON prints a JSON-ish value compactly for messages.
func renderJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
