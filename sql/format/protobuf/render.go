package protobuf

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/format/internal/javafloat"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// RenderShort reads payload (no Confluent header), a message of schema
// that the header's message indexes name, and prints it as ksqlDB's PRINT
// shows protobuf records: Java TextFormat's shortDebugString of the
// message Confluent's KafkaProtobufDeserializer returns. Fields come in
// number order, unset (proto3 default) fields are left out, a nested
// message is "NAME { … }", map entries sorted by key, strings and bytes
// with TextFormat's escapes, floats as Java prints them; unknown fields
// are left out.
func RenderShort(schema string, refs Refs, indexes []int, payload []byte) (string, error) {
	f, err := compile(schema, refs)
	if err != nil {
		return "", err
	}
	name, err := MessageByIndexes(schema, refs, indexes)
	if err != nil {
		return "", err
	}
	md, err := message(f, name)
	if err != nil {
		return "", err
	}
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(payload, m); err != nil {
		return "", &DecodeError{Msg: "the payload is not a " + name + ": " + err.Error()}
	}
	return strings.TrimSpace(string(appendShort(nil, m))), nil
}

// appendShort appends each set field of m, each followed by a space.
func appendShort(buf []byte, m protoreflect.Message) []byte {
	type field struct {
		fd protoreflect.FieldDescriptor
		v  protoreflect.Value
	}
	var fields []field
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		fields = append(fields, field{fd, v})
		return true
	})
	slices.SortFunc(fields, func(a, b field) int { return cmp.Compare(a.fd.Number(), b.fd.Number()) })
	for _, f := range fields {
		switch {
		case f.fd.IsMap():
			buf = appendShortMap(buf, f.fd, f.v.Map())
		case f.fd.IsList():
			for i, l := 0, f.v.List(); i < l.Len(); i++ {
				buf = appendShortField(buf, f.fd, l.Get(i))
			}
		default:
			buf = appendShortField(buf, f.fd, f.v)
		}
	}
	return buf
}

func appendShortField(buf []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	buf = append(buf, fd.Name()...)
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return append(appendShort(append(buf, " { "...), v.Message()), "} "...)
	}
	return append(appendShortScalar(append(buf, ": "...), fd, v), ' ')
}

// appendShortMap writes a map field as TextFormat does: one entry
// message per key, sorted by key.
func appendShortMap(buf []byte, fd protoreflect.FieldDescriptor, m protoreflect.Map) []byte {
	var keys []protoreflect.MapKey
	m.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
		keys = append(keys, k)
		return true
	})
	slices.SortFunc(keys, compareMapKeys)
	for _, k := range keys {
		buf = append(append(buf, fd.Name()...), " { key: "...)
		buf = append(appendShortScalar(buf, fd.MapKey(), k.Value()), ' ')
		buf = appendShortEntryValue(buf, fd.MapValue(), m.Get(k))
		buf = append(buf, "} "...)
	}
	return buf
}

func appendShortEntryValue(buf []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	if fd.Kind() == protoreflect.MessageKind {
		return append(appendShort(append(buf, "value { "...), v.Message()), "} "...)
	}
	return append(appendShortScalar(append(buf, "value: "...), fd, v), ' ')
}

func compareMapKeys(a, b protoreflect.MapKey) int {
	switch x := a.Interface().(type) {
	case string:
		return strings.Compare(x, b.String())
	case bool:
		return cmp.Compare(boolInt(x), boolInt(b.Bool()))
	case int32, int64:
		return cmp.Compare(a.Int(), b.Int())
	}
	return cmp.Compare(a.Uint(), b.Uint())
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func appendShortScalar(buf []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) []byte {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return appendEscaped(buf, []byte(v.String()))
	case protoreflect.BytesKind:
		return appendEscaped(buf, v.Bytes())
	case protoreflect.BoolKind:
		return strconv.AppendBool(buf, v.Bool())
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			return append(buf, ev.Name()...)
		}
		return strconv.AppendInt(buf, int64(v.Enum()), 10)
	case protoreflect.FloatKind:
		return javafloat.Append(buf, v.Float(), 32)
	case protoreflect.DoubleKind:
		return javafloat.Append(buf, v.Float(), 64)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return strconv.AppendUint(buf, v.Uint(), 10)
	}
	return strconv.AppendInt(buf, v.Int(), 10)
}
