package format

import (
	"strconv"

	"github.com/sqlstream/sqlstream/sql/types"
)

// jsonSRPayload is JSON_SR's payload: JSON text, read and written by the
// JSON codec (ksqlDB does not validate JSON_SR payloads against the
// writer's schema either), and a JSON Schema in the shape Kafka Connect's
// JsonSchemaData gives ksqlDB's columns.
type jsonSRPayload struct{}

var _ srPayload = jsonSRPayload{}

func (jsonSRPayload) schemaType() SchemaType { return JSONSchema }

func (jsonSRPayload) schema(cols []types.Column, _ Spec, unwrapped, _ bool) (Schema, error) {
	return Schema{Type: JSONSchema, Text: JSONSchemaOf(cols, unwrapped)}, nil
}

// decoder ignores the writer schema: the payload is self-describing JSON
// matched to the columns by name.
func (jsonSRPayload) decoder(_ RegisteredSchema, _ map[string]string, _ []int, cols []types.Column, read []bool, _ Spec, unwrapped, _ bool) (payloadDecoder, error) {
	c := newJSONCodec(cols, unwrapped)
	if read != nil {
		return c.pruned(read).(*jsonCodec), nil
	}
	return c, nil
}

func (jsonSRPayload) encoder(_ RegisteredSchema, _ map[string]string, cols []types.Column, _ Spec, unwrapped, _ bool) (payloadEncoder, []int, error) {
	return newJSONCodec(cols, unwrapped), nil, nil
}

func (jsonSRPayload) hasIndexes() bool { return false }

// JSONSchemaOf returns the JSON Schema ksqlDB registers for cols: an
// object with one optional property per column (oneOf null), each with
// its connect.index, or, unwrapped, the single column's optional schema.
func JSONSchemaOf(cols []types.Column, unwrapped bool) string {
	if unwrapped {
		return string(appendOptionalJSONSchema(nil, cols[0].Type))
	}
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, Type: c.Type}
	}
	return string(appendObjectJSONSchema(nil, fields))
}

func appendOptionalJSONSchema(b []byte, t *types.Type) []byte {
	b = append(b, `{"oneOf":[{"type":"null"},`...)
	b = appendJSONSchema(b, t)
	return append(b, "]}"...)
}

func appendObjectJSONSchema(b []byte, fields []types.Field) []byte {
	b = append(b, `{"type":"object","properties":{`...)
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.Name)
		b = append(b, `:{"connect.index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"oneOf":[{"type":"null"},`...)
		b = appendJSONSchema(b, f.Type)
		b = append(b, "]}"...)
	}
	return append(b, "}}"...)
}

// appendJSONSchema appends the (non-null) schema of t, as Connect's
// JsonSchemaData.fromConnectSchema writes it.
func appendJSONSchema(b []byte, t *types.Type) []byte {
	switch t.Kind {
	case types.KindBoolean:
		return append(b, `{"type":"boolean"}`...)
	case types.KindInteger:
		return append(b, `{"type":"integer","connect.type":"int32"}`...)
	case types.KindBigint:
		return append(b, `{"type":"integer","connect.type":"int64"}`...)
	case types.KindDouble:
		return append(b, `{"type":"number","connect.type":"float64"}`...)
	case types.KindString:
		return append(b, `{"type":"string"}`...)
	case types.KindBytes:
		return append(b, `{"type":"string","connect.type":"bytes"}`...)
	case types.KindDecimal:
		b = append(b, `{"type":"number","title":"org.apache.kafka.connect.data.Decimal","connect.version":1,"connect.type":"bytes","connect.parameters":{"scale":"`...)
		b = strconv.AppendInt(b, int64(t.Scale), 10)
		b = append(b, `","connect.decimal.precision":"`...)
		b = strconv.AppendInt(b, int64(t.Precision), 10)
		return append(b, `"}}`...)
	case types.KindTimestamp:
		return append(b, `{"type":"integer","title":"org.apache.kafka.connect.data.Timestamp","connect.version":1,"connect.type":"int64"}`...)
	case types.KindDate:
		return append(b, `{"type":"integer","title":"org.apache.kafka.connect.data.Date","connect.version":1,"connect.type":"int32"}`...)
	case types.KindTime:
		return append(b, `{"type":"integer","title":"org.apache.kafka.connect.data.Time","connect.version":1,"connect.type":"int32"}`...)
	case types.KindArray:
		b = append(b, `{"type":"array","items":`...)
		b = appendOptionalJSONSchema(b, t.Elem)
		return append(b, '}')
	case types.KindMap:
		b = append(b, `{"type":"object","additionalProperties":`...)
		b = appendOptionalJSONSchema(b, t.Elem)
		return append(b, `,"connect.type":"map"}`...)
	case types.KindStruct:
		return appendObjectJSONSchema(b, t.Fields)
	}
	return append(b, "{}"...)
}
