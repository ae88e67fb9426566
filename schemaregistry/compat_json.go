package schemaregistry

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// jsonReadable is a documented subset of Confluent's JSON Schema rules,
// walking both documents from the root (local "#/definitions/…" and
// "#/$defs/…" references are followed; others compare as strings):
//
//	TYPE_NARROWED / TYPE_CHANGED           the reader accepts fewer types
//	                                       ("integer" reads as "number")
//	REQUIRED_ATTRIBUTE_ADDED               a property the writer did not require
//	PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL   a typed property the writer's open
//	                                       model may have carried as anything
//	REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL
//	PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL
//	ADDITIONAL_PROPERTIES_REMOVED          the reader closes an open model
//	ENUM_ARRAY_NARROWED                    the reader drops enum values
//	MAX_*_DECREASED / MIN_*_INCREASED      tighter numeric, length or size bounds
//	COMBINED_TYPE_SUBSCHEMAS_CHANGED       a writer oneOf/anyOf branch no reader
//	                                       branch reads
//
// Not checked: patternProperties, dependencies, if/then/else, allOf
// merging, formats and patterns (a changed pattern is not detected).
func jsonReadable(reader, writer *parsed) []string {
	c := jsonCmp{rroot: reader.json, wroot: writer.json}
	c.node("#", reader.json, writer.json, 0)
	return c.msgs
}

type jsonCmp struct {
	rroot, wroot any
	msgs         []string
}

func (c *jsonCmp) bad(path, format string, args ...any) {
	c.msgs = append(c.msgs, fmt.Sprintf(format, args...)+" at "+path)
}

func (c *jsonCmp) node(path string, r, w any, depth int) {
	if depth > 64 {
		return
	}
	r, w = deref(c.rroot, r), deref(c.wroot, w)
	rm, rok := r.(map[string]any)
	wm, wok := w.(map[string]any)
	if r == true || (rok && len(rm) == 0) {
		return // the reader accepts anything
	}
	if w == true {
		w, wm, wok = map[string]any{}, map[string]any{}, true // the writer wrote anything
	}
	if !rok || !wok {
		if r == false && w != false {
			c.bad(path, "SCHEMA_REMOVED: the reader accepts nothing")
		}
		return
	}
	if c.combined(path, rm, wm, depth) {
		return
	}
	c.types(path, rm, wm)
	c.enum(path, rm, wm)
	c.bounds(path, rm, wm)
	c.object(path, rm, wm, depth)
	if ri, ok := rm["items"]; ok {
		c.node(path+"/items", ri, orTrue(wm["items"]), depth+1)
	}
}

func orTrue(v any) any {
	if v == nil {
		return true
	}
	return v
}

// deref follows a local reference within root.
func deref(root, v any) any {
	for range 16 {
		m, ok := v.(map[string]any)
		ref, _ := m["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#/") {
			return v
		}
		cur := root
		for _, part := range strings.Split(ref[2:], "/") {
			cm, _ := cur.(map[string]any)
			cur = cm[part]
		}
		if cur == nil {
			return v
		}
		v = cur
	}
	return v
}

// combined handles oneOf/anyOf: each writer branch must be readable by a
// reader branch (a plain schema is one branch).
func (c *jsonCmp) combined(path string, r, w map[string]any, depth int) bool {
	rb, wb := branches(r), branches(w)
	if rb == nil && wb == nil {
		return false
	}
	if rb == nil {
		rb = []any{r}
	}
	if wb == nil {
		wb = []any{w}
	}
	for i, wbr := range wb {
		if !slices.ContainsFunc(rb, func(x any) bool {
			sub := jsonCmp{rroot: c.rroot, wroot: c.wroot}
			sub.node(path, x, wbr, depth+1)
			return len(sub.msgs) == 0
		}) {
			c.bad(path, "COMBINED_TYPE_SUBSCHEMAS_CHANGED: no reader branch reads writer branch %d", i)
		}
	}
	return true
}

func branches(m map[string]any) []any {
	for _, k := range []string{"oneOf", "anyOf"} {
		if b, ok := m[k].([]any); ok {
			return b
		}
	}
	return nil
}

func typeSet(m map[string]any) []string {
	switch t := m["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (c *jsonCmp) types(path string, r, w map[string]any) {
	rt, wt := typeSet(r), typeSet(w)
	if rt == nil {
		return
	}
	if wt == nil {
		c.bad(path, "TYPE_NARROWED: the reader requires type %v where the writer allowed any", rt)
		return
	}
	for _, t := range wt {
		if !slices.Contains(rt, t) && !(t == "integer" && slices.Contains(rt, "number")) {
			c.bad(path, "TYPE_CHANGED: the reader does not accept type %q (reader types %v)", t, rt)
		}
	}
}

func (c *jsonCmp) enum(path string, r, w map[string]any) {
	re, ok := r["enum"].([]any)
	if !ok {
		return
	}
	we, ok := w["enum"].([]any)
	if !ok {
		c.bad(path, "ENUM_ARRAY_NARROWED: the reader adds an enum")
		return
	}
	for _, v := range we {
		if !slices.ContainsFunc(re, func(x any) bool { return fmt.Sprint(x) == fmt.Sprint(v) }) {
			c.bad(path, "ENUM_ARRAY_NARROWED: the reader drops %v", v)
		}
	}
}

func (c *jsonCmp) bounds(path string, r, w map[string]any) {
	for _, k := range []string{"maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"} {
		if rv, ok := num(r[k]); ok {
			if wv, ok := num(w[k]); !ok || rv < wv {
				c.bad(path, "%s_DECREASED: %s %v", strings.ToUpper(k), k, rv)
			}
		}
	}
	for _, k := range []string{"minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"} {
		if rv, ok := num(r[k]); ok {
			if wv, ok := num(w[k]); !ok || rv > wv {
				c.bad(path, "%s_INCREASED: %s %v", strings.ToUpper(k), k, rv)
			}
		}
	}
}

// num reads a JSON number (jsonschema.UnmarshalJSON keeps json.Number).
func num(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func closed(m map[string]any) bool { return m["additionalProperties"] == false }

func required(m map[string]any) []string {
	var out []string
	for _, x := range asSlice(m["required"]) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func (c *jsonCmp) object(path string, r, w map[string]any, depth int) {
	rp, _ := r["properties"].(map[string]any)
	wp, _ := w["properties"].(map[string]any)
	wreq := required(w)
	for _, name := range required(r) {
		if !slices.Contains(wreq, name) {
			c.bad(path, "REQUIRED_ATTRIBUTE_ADDED: property %q", name)
		}
	}
	if closed(r) && !closed(w) {
		c.bad(path, "ADDITIONAL_PROPERTIES_REMOVED: the reader closes the content model")
	}
	for _, name := range sortedKeysOf(rp) {
		sub := path + "/properties/" + name
		if wv, ok := wp[name]; ok {
			c.node(sub, rp[name], wv, depth+1)
			continue
		}
		if !closed(w) {
			added := jsonCmp{rroot: c.rroot, wroot: c.wroot}
			added.node(sub, rp[name], orTrue(w["additionalProperties"]), depth+1)
			if len(added.msgs) > 0 {
				c.bad(sub, "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL: property %q, which the writer's open model may have carried as anything (%s)", name, strings.Join(added.msgs, "; "))
			}
		}
	}
	for _, name := range sortedKeysOf(wp) {
		if _, ok := rp[name]; !ok && closed(r) {
			c.bad(path, "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL: property %q", name)
		}
	}
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
