package protobuf

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/types"
)

func (s *slot) num() protowire.Number { return protowire.Number(s.fd.Number()) }

// compile prepares s to read fd into s.target.
func (s *slot) compile(fd protoreflect.FieldDescriptor, depth int) error {
	s.presence = fd.HasPresence()
	switch {
	case fd.IsMap():
		return s.compileMap(fd.MapKey(), fd.MapValue(), depth)
	case fd.IsList():
		if fd.Kind() == protoreflect.MessageKind && s.target.Kind == types.KindMap {
			if k, v, ok := entryFields(fd.Message()); ok {
				return s.compileMap(k, v, depth)
			}
		}
		if s.target.Kind != types.KindArray {
			return s.mismatch(fd)
		}
		s.shape = shapeList
		return s.compileValue(fd, s.target.Elem, depth)
	}
	s.shape = shapeScalar
	return s.compileValue(fd, s.target, depth)
}

func (s *slot) compileMap(k, v protoreflect.FieldDescriptor, depth int) error {
	if s.target.Kind != types.KindMap || k.Kind() != protoreflect.StringKind {
		return s.mismatch(k.ContainingMessage().Fields().ByNumber(2))
	}
	s.shape = shapeMap
	entry := []types.Field{{Name: "key", Type: types.StringType}, {Name: "value", Type: s.target.Elem}}
	sub, err := newMsgDecoder(k.ContainingMessage(), entry, s.path, depth+1)
	s.sub = sub
	return err
}

// compileValue prepares the decoding of one value of fd as t.
func (s *slot) compileValue(fd protoreflect.FieldDescriptor, t *types.Type, depth int) error {
	s.vt, s.kind = t, fd.Kind()
	if fd.Kind() != protoreflect.MessageKind {
		if !kindFits(fd.Kind(), t.Kind) {
			return s.mismatch(fd)
		}
		if fd.Kind() == protoreflect.EnumKind {
			s.enum = fd.Enum().Values()
		}
		s.zero = zeroOf(fd, t)
		return nil
	}
	if s.shape == shapeScalar {
		s.shape = shapeMessage
	}
	md := fd.Message()
	s.wk = wellKnown(md)
	switch s.wk {
	case wkTimestamp:
		return s.expect(fd, t, types.KindTimestamp)
	case wkDate:
		return s.expect(fd, t, types.KindDate)
	case wkTime:
		return s.expect(fd, t, types.KindTime)
	case wkDecimal:
		return s.expect(fd, t, types.KindDecimal)
	case wkWrapper:
		sub, err := newMsgDecoder(md, []types.Field{{Name: "value", Type: t}}, s.path, depth+1)
		s.sub = sub
		return err
	}
	if t.Kind != types.KindStruct {
		return s.mismatch(fd)
	}
	sub, err := newMsgDecoder(md, t.Fields, s.path, depth+1)
	s.sub = sub
	return err
}

func (s *slot) expect(fd protoreflect.FieldDescriptor, t *types.Type, k types.Kind) error {
	if t.Kind != k {
		return s.mismatch(fd)
	}
	return nil
}

func (s *slot) mismatch(fd protoreflect.FieldDescriptor) error {
	return schemaErr("column %s of type %s cannot be read from protobuf field %s (%s)", s.path, s.target, fd.FullName(), fieldTypeName(fd))
}

func fieldTypeName(fd protoreflect.FieldDescriptor) string {
	name := fd.Kind().String()
	if fd.Kind() == protoreflect.MessageKind {
		name = string(fd.Message().FullName())
	}
	if fd.IsMap() {
		return "map"
	}
	if fd.IsList() {
		return "repeated " + name
	}
	return name
}

// kindFits reports whether a scalar protobuf kind can be read as SQL kind t.
func kindFits(k protoreflect.Kind, t types.Kind) bool {
	switch k {
	case protoreflect.BoolKind:
		return t == types.KindBoolean
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return t == types.KindDouble
	case protoreflect.StringKind:
		return t == types.KindString
	case protoreflect.BytesKind:
		return t == types.KindBytes
	case protoreflect.EnumKind:
		return t == types.KindString || t == types.KindInteger || t == types.KindBigint
	case protoreflect.GroupKind:
		return false
	}
	return t == types.KindInteger || t == types.KindBigint || t == types.KindDouble
}

// zeroOf is the proto3 default of fd read as t.
func zeroOf(fd protoreflect.FieldDescriptor, t *types.Type) any {
	switch t.Kind {
	case types.KindBoolean:
		return false
	case types.KindInteger:
		return int32(0)
	case types.KindBigint:
		return int64(0)
	case types.KindDouble:
		return float64(0)
	case types.KindBytes:
		return []byte{}
	}
	if fd.Kind() == protoreflect.EnumKind {
		if v := fd.Enum().Values().ByNumber(fd.Default().Enum()); v != nil {
			return string(v.Name())
		}
	}
	return ""
}

// wireType is the wire type a scalar kind is written with.
func wireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	}
	return protowire.VarintType
}

func packable(k protoreflect.Kind) bool {
	return wireType(k) != protowire.BytesType && k != protoreflect.GroupKind
}
