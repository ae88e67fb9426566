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
}

func (in *inferrer) name(n string) string {
	if in.keepCase {
		return n
	}
	return strings.ToUpper(n)
}

// fields infers the fields of md in declaration order; a oneof becomes one
// STRUCT at the position of its first member.
func (in *inferrer) fields(md protoreflect.MessageDescriptor) []types.Field {
	in.open[md.FullName()] = true
	defer delete(in.open, md.FullName())
	var out []types.Field
	done := map[protoreflect.OneofDescriptor]bool{}
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		fd := fs.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if !done[od] {
				done[od] = true
				out = append(out, in.oneof(od)...)
			}
			continue
		}
		if t := in.fieldType(fd); t != nil {
			out = append(out, types.Field{Name: in.name(string(fd.Name())), Type: t})
		}
	}
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
			if k, v, ok := entryFields(fd.Message()); ok {
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
	if k.Kind() != protoreflect.StringKind {
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
// map_entry option).
func entryFields(md protoreflect.MessageDescriptor) (k, v protoreflect.FieldDescriptor, ok bool) {
	if !strings.HasSuffix(string(md.Name()), "Entry") || md.Fields().Len() != 2 {
		return nil, nil, false
	}
	k, v = md.Fields().ByNumber(1), md.Fields().ByNumber(2)
	if k == nil || v == nil || k.Name() != "key" || v.Name() != "value" || k.IsList() || v.IsList() {
		return nil, nil, false
	}
	return k, v, true
}

// singular is the SQL type of one value of fd (an element, for lists).
func (in *inferrer) singular(fd protoreflect.FieldDescriptor) *types.Type {
	if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
		return in.messageType(fd)
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
