package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/format/avro"
	"github.com/sqlstream/sqlstream/sql/format/protobuf"
	"github.com/sqlstream/sqlstream/sql/types"
)

// InferOptions say how registered schemas become columns.
type InferOptions struct {
	// Key infers the key side: a single column named ROWKEY.
	Key bool
	// Unwrapped infers the value side as a single column ROWVAL
	// (WRAP_SINGLE_VALUE=false).
	Unwrapped bool
	// KeepCase keeps field names as the schema spells them
	// (KEY_/VALUE_SCHEMA_ID); otherwise they are upper-cased.
	KeepCase bool
	// FullName is *_SCHEMA_FULL_NAME: the protobuf message to read ("":
	// the first).
	FullName string
	// Refs are the texts of the schemas s references (ResolveReferences).
	Refs map[string]string
}

// InferColumns returns the columns of a registered schema as ksqlDB
// infers them on CREATE without columns: an object's properties become
// columns in connect.index order (names upper-cased unless KeepCase),
// unsupported types are dropped, a key (or an unwrapped value) is one
// column ROWKEY (ROWVAL) of the schema's type. The columns' namespace is
// left to the caller.
func InferColumns(format string, s RegisteredSchema, o InferOptions) ([]types.Column, error) {
	switch format {
	case JSONSR:
		return inferJSONSchema(s.Text, o)
	case Avro:
		// A key is the one column ROWKEY (of the record's STRUCT type for a
		// record), as ksqlDB infers it.
		return avro.Columns(s.Text, o.Refs, avro.Options{Unwrapped: o.Unwrapped || o.Key, Key: o.Key, OriginalNames: o.KeepCase})
	case Protobuf:
		return protobuf.Columns(s.Text, o.Refs, protobuf.Options{Unwrapped: o.Unwrapped, Key: o.Key, KeepCase: o.KeepCase, FullName: o.FullName})
	}
	return nil, fmt.Errorf("format %s cannot infer columns from the schema registry in this build", format)
}

func inferJSONSchema(text string, o InferOptions) ([]types.Column, error) {
	root, err := parseOrdered([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	if o.Key || o.Unwrapped {
		name := "ROWVAL"
		if o.Key {
			name = "ROWKEY"
		}
		t := jsonSchemaType(root, o.KeepCase)
		if t == nil {
			return nil, fmt.Errorf("the schema's type is not supported: %s", text)
		}
		return []types.Column{{Name: name, Type: t}}, nil
	}
	obj := nonNull(root)
	if obj.str("type") != "object" || obj.get("properties") == nil {
		return nil, fmt.Errorf("a value schema must be an object with properties (or use WRAP_SINGLE_VALUE=false): %s", text)
	}
	fields := jsonSchemaFields(obj, o.KeepCase)
	cols := make([]types.Column, len(fields))
	for i, f := range fields {
		cols[i] = types.Column{Name: f.Name, Type: f.Type}
	}
	return cols, nil
}

// jsonSchemaType maps a JSON Schema to a SQL type, nil when unsupported.
func jsonSchemaType(n *onode, keepCase bool) *types.Type {
	n = nonNull(n)
	if n == nil {
		return nil
	}
	title, ctype := n.str("title"), n.str("connect.type")
	switch n.str("type") {
	case "boolean":
		return types.BooleanType
	case "integer":
		return integerType(title, ctype)
	case "number":
		if title == "org.apache.kafka.connect.data.Decimal" {
			return decimalType(n.get("connect.parameters"))
		}
		return types.DoubleType
	case "string":
		if ctype == "bytes" {
			return types.BytesType
		}
		return types.StringType
	case "array":
		if e := jsonSchemaType(n.get("items"), keepCase); e != nil {
			return types.ArrayOf(e)
		}
	case "object":
		return objectType(n, keepCase)
	}
	return nil
}

func integerType(title, ctype string) *types.Type {
	switch title {
	case "org.apache.kafka.connect.data.Timestamp":
		return types.TimestampType
	case "org.apache.kafka.connect.data.Date":
		return types.DateType
	case "org.apache.kafka.connect.data.Time":
		return types.TimeType
	}
	switch ctype {
	case "int8", "int16", "int32":
		return types.IntegerType
	}
	return types.BigintType
}

func decimalType(params *onode) *types.Type {
	p, _ := strconv.Atoi(params.str("connect.decimal.precision"))
	s, _ := strconv.Atoi(params.str("scale"))
	if p <= 0 {
		p = 64 // Connect's default when the precision is not given
	}
	return types.DecimalOf(p, s)
}

func objectType(n *onode, keepCase bool) *types.Type {
	if ap := n.get("additionalProperties"); ap != nil && ap.kind == '{' {
		if v := jsonSchemaType(ap, keepCase); v != nil {
			return types.MapOf(types.StringType, v)
		}
		return nil
	}
	fields := jsonSchemaFields(n, keepCase)
	if len(fields) == 0 {
		return nil
	}
	return types.StructOf(fields...)
}

// jsonSchemaFields are an object schema's supported properties, in
// connect.index order (document order where absent).
func jsonSchemaFields(n *onode, keepCase bool) []types.Field {
	props := n.get("properties")
	if props == nil {
		return nil
	}
	type indexed struct {
		f   types.Field
		idx int
	}
	var fs []indexed
	for i, m := range props.members {
		t := jsonSchemaType(m.val, keepCase)
		if t == nil {
			continue // ksqlDB drops unsupported types
		}
		name := m.key
		if !keepCase {
			name = strings.ToUpper(name)
		}
		idx := i
		if ci := m.val.get("connect.index"); ci != nil {
			if v, err := strconv.Atoi(ci.scalar); err == nil {
				idx = v
			}
		}
		fs = append(fs, indexed{types.Field{Name: name, Type: t}, idx})
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].idx < fs[j].idx })
	out := make([]types.Field, len(fs))
	for i, f := range fs {
		out[i] = f.f
	}
	return out
}

// nonNull unwraps {"oneOf":[{"type":"null"}, X]} (or anyOf) to X.
func nonNull(n *onode) *onode {
	if n == nil {
		return nil
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts := n.get(k)
		if alts == nil {
			continue
		}
		var rest []*onode
		for _, a := range alts.items {
			if a.str("type") != "null" {
				rest = append(rest, a)
			}
		}
		if len(rest) == 1 {
			return nonNull(rest[0])
		}
		return nil
	}
	return n
}

// onode is a JSON value that keeps its object members in document order.
type onode struct {
	kind    byte // '{', '[', or 's' for a scalar
	members []omember
	items   []*onode
	scalar  string // a string's text, or a number/bool/null literal
}

type omember struct {
	key string
	val *onode
}

func (n *onode) get(key string) *onode {
	if n == nil {
		return nil
	}
	for _, m := range n.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

func (n *onode) str(key string) string {
	if v := n.get(key); v != nil && v.kind == 's' {
		return v.scalar
	}
	return ""
}

func parseOrdered(b []byte) (*onode, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	n, err := parseNode(d)
	if err != nil {
		return nil, fmt.Errorf("at byte %d: %w", d.InputOffset(), err)
	}
	return n, nil
}

func parseNode(d *json.Decoder) (*onode, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return parseObject(d)
		}
		if t == '[' {
			return parseArray(d)
		}
		return nil, fmt.Errorf("unexpected %q", t)
	case string:
		return &onode{kind: 's', scalar: t}, nil
	case json.Number:
		return &onode{kind: 's', scalar: t.String()}, nil
	case bool:
		return &onode{kind: 's', scalar: strconv.FormatBool(t)}, nil
	}
	return &onode{kind: 's', scalar: "null"}, nil
}

func parseObject(d *json.Decoder) (*onode, error) {
	n := &onode{kind: '{'}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		v, err := parseNode(d)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, omember{key: tok.(string), val: v})
	}
	_, err := d.Token()
	return n, err
}

func parseArray(d *json.Decoder) (*onode, error) {
	n := &onode{kind: '['}
	for d.More() {
		v, err := parseNode(d)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
	}
	_, err := d.Token()
	return n, err
}
