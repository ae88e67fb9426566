package schemaregistry

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// protoReadable applies Confluent's protobuf rules to the messages and
// enums of the schema's own file, by full name and field number:
//
//	PACKAGE_CHANGED                   incompatible
//	MESSAGE_REMOVED, ENUM_REMOVED     incompatible (the writer's type is gone)
//	FIELD_ADDED, FIELD_REMOVED        compatible (defaults; unknown fields skipped)
//	FIELD_NAME_CHANGED                compatible (names are not on the wire)
//	FIELD_SCALAR_KIND_CHANGED         compatible only within one wire-compatible
//	                                  group: int32/uint32/int64/uint64/bool,
//	                                  sint32/sint64, fixed32/sfixed32,
//	                                  fixed64/sfixed64, string/bytes
//	FIELD_KIND_CHANGED                incompatible (scalar ↔ message ↔ enum)
//	FIELD_NAMED_TYPE_CHANGED          incompatible (another message or enum type)
//	FIELD_LABEL_CHANGED               incompatible (repeated ↔ singular)
//	REQUIRED_FIELD_ADDED / _REMOVED   incompatible (proto2)
//	FIELD_MOVED_TO_EXISTING_ONEOF     incompatible
//	MULTIPLE_FIELDS_MOVED_TO_ONEOF    incompatible
func protoReadable(reader, writer *parsed) []string {
	var msgs []string
	if rp, wp := reader.proto.Package(), writer.proto.Package(); rp != wp {
		msgs = append(msgs, fmt.Sprintf("PACKAGE_CHANGED: package %q became %q", wp, rp))
	}
	rm, re := protoTypes(reader.proto)
	wm, we := protoTypes(writer.proto)
	for name := range we {
		if re[name] == nil {
			msgs = append(msgs, fmt.Sprintf("ENUM_REMOVED: enum %s", name))
		}
	}
	for _, name := range sortedKeysOf(wm) {
		r := rm[name]
		if r == nil {
			msgs = append(msgs, fmt.Sprintf("MESSAGE_REMOVED: message %s", name))
			continue
		}
		msgs = append(msgs, protoMessage(r, wm[name])...)
	}
	return msgs
}

// protoTypes indexes a file's messages (map entries excluded) and enums,
// nested ones included, by full name.
func protoTypes(fd protoreflect.FileDescriptor) (map[string]protoreflect.MessageDescriptor, map[string]protoreflect.EnumDescriptor) {
	ms, es := map[string]protoreflect.MessageDescriptor{}, map[string]protoreflect.EnumDescriptor{}
	var walk func(protoreflect.MessageDescriptors, protoreflect.EnumDescriptors)
	walk = func(m protoreflect.MessageDescriptors, e protoreflect.EnumDescriptors) {
		for i := range e.Len() {
			es[string(e.Get(i).FullName())] = e.Get(i)
		}
		for i := range m.Len() {
			md := m.Get(i)
			if md.IsMapEntry() {
				continue
			}
			ms[string(md.FullName())] = md
			walk(md.Messages(), md.Enums())
		}
	}
	walk(fd.Messages(), fd.Enums())
	return ms, es
}

func protoMessage(r, w protoreflect.MessageDescriptor) []string {
	var msgs []string
	at := func(f protoreflect.FieldDescriptor) string {
		return fmt.Sprintf("field %s.%s (number %d)", w.FullName(), f.Name(), f.Number())
	}
	for i := range w.Fields().Len() {
		wf := w.Fields().Get(i)
		rf := r.Fields().ByNumber(wf.Number())
		if rf == nil {
			if wf.Cardinality() == protoreflect.Required {
				msgs = append(msgs, "REQUIRED_FIELD_REMOVED: "+at(wf))
			}
			continue
		}
		if m := protoField(rf, wf); m != "" {
			msgs = append(msgs, m+": "+at(wf))
		}
	}
	for i := range r.Fields().Len() {
		rf := r.Fields().Get(i)
		if w.Fields().ByNumber(rf.Number()) == nil && rf.Cardinality() == protoreflect.Required {
			msgs = append(msgs, fmt.Sprintf("REQUIRED_FIELD_ADDED: field %s.%s (number %d)", r.FullName(), rf.Name(), rf.Number()))
		}
	}
	return append(msgs, protoOneofs(r, w)...)
}

// protoField compares one field number's reader and writer declarations.
func protoField(r, w protoreflect.FieldDescriptor) string {
	if r.IsMap() != w.IsMap() || (r.Cardinality() == protoreflect.Repeated) != (w.Cardinality() == protoreflect.Repeated) {
		return "FIELD_LABEL_CHANGED"
	}
	if r.IsMap() {
		if m := protoKind(r.MapKey(), w.MapKey()); m != "" {
			return m + " (map key)"
		}
		if m := protoKind(r.MapValue(), w.MapValue()); m != "" {
			return m + " (map value)"
		}
		return ""
	}
	if r.Cardinality() == protoreflect.Required && w.Cardinality() != protoreflect.Required {
		return "REQUIRED_FIELD_ADDED"
	}
	return protoKind(r, w)
}

func protoKind(r, w protoreflect.FieldDescriptor) string {
	rk, wk := kindClass(r.Kind()), kindClass(w.Kind())
	switch {
	case rk != wk && (rk == "message" || wk == "message" || rk == "enum" || wk == "enum"):
		return fmt.Sprintf("FIELD_KIND_CHANGED from %s to %s", w.Kind(), r.Kind())
	case rk != wk:
		return fmt.Sprintf("FIELD_SCALAR_KIND_CHANGED from %s to %s", w.Kind(), r.Kind())
	case rk == "message" && r.Message().FullName() != w.Message().FullName():
		return fmt.Sprintf("FIELD_NAMED_TYPE_CHANGED from %s to %s", w.Message().FullName(), r.Message().FullName())
	case rk == "enum" && r.Enum().FullName() != w.Enum().FullName():
		return fmt.Sprintf("FIELD_NAMED_TYPE_CHANGED from %s to %s", w.Enum().FullName(), r.Enum().FullName())
	}
	return ""
}

// kindClass groups the kinds that read each other's wire data.
func kindClass(k protoreflect.Kind) string {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Uint32Kind, protoreflect.Int64Kind, protoreflect.Uint64Kind, protoreflect.BoolKind:
		return "varint"
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		return "zigzag"
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
		return "fixed32"
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
		return "fixed64"
	case protoreflect.StringKind, protoreflect.BytesKind:
		return "length"
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return "message"
	case protoreflect.EnumKind:
		return "enum"
	}
	return k.String()
}

// protoOneofs finds writer fields that the reader moved into a oneof:
// into one the writer already had, or several into a new one.
func protoOneofs(r, w protoreflect.MessageDescriptor) []string {
	var msgs []string
	moved := map[string]int{}
	for i := range w.Fields().Len() {
		wf := w.Fields().Get(i)
		rf := r.Fields().ByNumber(wf.Number())
		if rf == nil || realOneof(rf) == nil || realOneof(wf) != nil {
			continue
		}
		name := realOneof(rf).Name()
		if w.Oneofs().ByName(name) != nil {
			msgs = append(msgs, fmt.Sprintf("FIELD_MOVED_TO_EXISTING_ONEOF: field %s.%s into oneof %s", w.FullName(), wf.Name(), name))
		}
		moved[string(name)]++
	}
	for _, name := range sortedKeysOf(moved) {
		if moved[name] > 1 && w.Oneofs().ByName(protoreflect.Name(name)) == nil {
			msgs = append(msgs, fmt.Sprintf("MULTIPLE_FIELDS_MOVED_TO_ONEOF: %d fields of %s into oneof %s", moved[name], w.FullName(), name))
		}
	}
	return msgs
}

// realOneof is a field's oneof unless it is proto3 optional's synthetic one.
func realOneof(f protoreflect.FieldDescriptor) protoreflect.OneofDescriptor {
	if o := f.ContainingOneof(); o != nil && !o.IsSynthetic() {
		return o
	}
	return nil
}
