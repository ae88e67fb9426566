package protobuf

import (
	"strconv"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Columns infers sqlstream columns from a registered schema as ksqlDB
// does: one column per field of the message o.FullName names ("" = the
// first), names upper-cased unless o.KeepCase, enums as STRING, unsigned
// 32-bit and all 64-bit integers as BIGINT, float as DOUBLE, wrappers as
// their inner type, repeated as ARRAY, maps (and the repeated …Entry
// messages ksqlDB prints for them) as MAP, the Timestamp, Date, TimeOfDay
// and Decimal messages as their SQL types, other messages as STRUCT, and a
// oneof as a STRUCT named <oneof>_<index> of its members. Fields of a type
// SQL cannot hold (recursive messages, maps with non-string keys, a
// Decimal without precision) are dropped. Every column is nullable.
func Columns(schema string, refs Refs, o Options) ([]types.Column, error) {
	f, err := compile(schema, refs)
	if err != nil {
		return nil, err
	}
	md, err := message(f, o.FullName)
	if err != nil {
		return nil, err
	}
	in := inferrer{keepCase: o.KeepCase, open: map[protoreflect.FullName]bool{}}
	fields := in.fields(md)
	if in.dup != "" {
		return nil, schemaErr("protobuf schema field names collide as columns: %s (ksqlDB names columns by upper-cased field names)", in.dup)
	}
	ns := types.ValueNS
	if o.Key {
		ns = types.KeyNS
	}
	cols := make([]types.Column, len(fields))
	for i, fl := range fields {
		cols[i] = types.Column{Name: fl.Name, Type: fl.Type, NS: ns}
	}
	return cols, nil
}

type inferrer struct {
	keepCase bool
	open     map[protoreflect.FullName]bool // messages being inferred (cycle check)
	dup      string                         // the first duplicate column or field name
}

// checkDup records the first name that two fields of one message share.
func (in *inferrer) checkDup(fields []types.Field) {
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] && in.dup == "" {
			in.dup = f.Name
		}
		seen[f.Name] = true
	}
}

func (in *inferrer) name(n string) string {
	if in.keepCase {
		return n
	}
	return strings.ToUpper(n)
}

// fields infers the fields of md: its oneofs first (each one STRUCT, as
// Confluent's converter lists them), then the other fields in declaration
// order.
func (in *inferrer) fields(md protoreflect.MessageDescriptor) []types.Field {
	in.open[md.FullName()] = true
	defer delete(in.open, md.FullName())
	var out []types.Field
	for i := 0; i < md.Oneofs().Len(); i++ {
		if od := md.Oneofs().Get(i); !od.IsSynthetic() {
			out = append(out, in.oneof(od)...)
		}
	}
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue
		}
		if t := in.fieldType(fd); t != nil {
			out = append(out, types.Field{Name: in.name(string(fd.Name())), Type: t})
		}
	}
	in.checkDup(out)
	return out
}

func (in *inferrer) oneof(od protoreflect.OneofDescriptor) []types.Field {
	var members []types.Field
	for i := 0; i < od.Fields().Len(); i++ {
		fd := od.Fields().Get(i)
		if t := in.fieldType(fd); t != nil {
			members = append(members, types.Field{Name: in.name(string(fd.Name())), Type: t})
		}
	}
	if len(members) == 0 {
		return nil
	}
	name := in.name(string(od.Name()) + "_" + strconv.Itoa(od.Index()))
	return []types.Field{{Name: name, Type: types.StructOf(members...)}}
}

// fieldType is the SQL type of a field, or nil when SQL cannot hold it.
func (in *inferrer) fieldType(fd protoreflect.FieldDescriptor) *types.Type {
	if fd.IsMap() {
		return in.mapType(fd.MapKey(), fd.MapValue())
	}
	if fd.IsList() {
		if fd.Kind() == protoreflect.MessageKind {
			if k, v, ok := entryFields(fd.Message(), false); ok {
				return in.mapType(k, v)
			}
		}
		elem := in.singular(fd)
		if elem == nil {
			return nil
		}
		return types.ArrayOf(elem)
	}
	return in.singular(fd)
}

func (in *inferrer) mapType(k, v protoreflect.FieldDescriptor) *types.Type {
	if !isStringKey(k) {
		return nil
	}
	vt := in.singular(v)
	if vt == nil {
		return nil
	}
	return types.MapOf(types.StringType, vt)
}

// entryFields recognises the entry message ksqlDB prints for a MAP
// (ConnectDefault2Entry { string key = 1; V value = 2; } without the
// map_entry option), as Confluent's converter does: a name ending in
// Entry, fields key and value, neither repeated. repeatedValue also
// accepts a repeated value (what the converter writes for a MAP of
// ARRAYs, though it reads that back as an ARRAY of STRUCTs).
func entryFields(md protoreflect.MessageDescriptor, repeatedValue bool) (k, v protoreflect.FieldDescriptor, ok bool) {
	if !strings.HasSuffix(string(md.Name()), "Entry") || md.Fields().Len() != 2 {
		return nil, nil, false
	}
	k, v = md.Fields().Get(0), md.Fields().Get(1)
	if k.Name() != "key" || v.Name() != "value" || k.IsList() || (v.IsList() && !repeatedValue) {
		return nil, nil, false
	}
	return k, v, true
}

// isStringKey reports whether a map key field holds a string (plain, or
// wrapped as WRAPPER writes it).
func isStringKey(k protoreflect.FieldDescriptor) bool {
	if k.Kind() == protoreflect.MessageKind {
		return k.Message().FullName() == "google.protobuf.StringValue"
	}
	return k.Kind() == protoreflect.StringKind
}

// singular is the SQL type of one value of fd (an element, for lists).
func (in *inferrer) singular(fd protoreflect.FieldDescriptor) *types.Type {
	switch fd.Kind() {
	case protoreflect.MessageKind:
		return in.messageType(fd)
	case protoreflect.GroupKind:
		return nil // proto2 groups: ksqlDB has no type for them
	}
	return kindType(fd.Kind())
}

func kindType(k protoreflect.Kind) *types.Type {
	switch k {
	case protoreflect.BoolKind:
		return types.BooleanType
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return types.IntegerType
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return types.BigintType
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return types.DoubleType
	case protoreflect.StringKind, protoreflect.EnumKind:
		return types.StringType
	case protoreflect.BytesKind:
		return types.BytesType
	}
	return nil
}

func (in *inferrer) messageType(fd protoreflect.FieldDescriptor) *types.Type {
	md := fd.Message()
	switch w := wellKnown(md); w {
	case wkTimestamp:
		return types.TimestampType
	case wkDate:
		return types.DateType
	case wkTime:
		return types.TimeType
	case wkDecimal:
		p, s, ok := decimalParams(fd)
		if !ok {
			return nil
		}
		return types.DecimalOf(p, s)
	case wkNone:
	default:
		return kindType(md.Fields().Get(0).Kind())
	}
	if in.open[md.FullName()] {
		return nil
	}
	fields := in.fields(md)
	if len(fields) == 0 {
		return nil
	}
	return types.StructOf(fields...)
}
